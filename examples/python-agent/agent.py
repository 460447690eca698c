"""A support agent in Python: an OpenAI Chat Completions tool loop whose tools call the order
desk's HTTP API. Nothing in here knows about tests: it reads the usual variables
(OPENAI_BASE_URL, OPENAI_API_KEY) and its own ORDERS_API_URL, as it would in production.

It uses the official `openai` package when it is installed, else the same requests with
Python's standard library (urllib); UNDERSTUDY_AGENT_CLIENT=urllib forces the latter. The
first line it prints says which one ran.

Usage: python agent.py "<the customer's question>"
"""

import json
import os
import sys
import urllib.error
import urllib.request

MODEL = "gpt-4o-mini"
MAX_STEPS = 8
SYSTEM_PROMPT = (
    "You are the support agent of Acme Outfitters. Always look up an order before acting on it. "
    "Refund only what the customer paid, and email the customer after a refund."
)

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_order",
            "description": "Look up an order by id.",
            "parameters": {
                "type": "object",
                "properties": {"id": {"type": "string"}},
                "required": ["id"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "refund_order",
            "description": "Refund an order (once).",
            "parameters": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "amount": {"type": "number"}},
                "required": ["id", "amount"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "send_email",
            "description": "Email the customer of an order.",
            "parameters": {
                "type": "object",
                "properties": {"orderId": {"type": "string"}, "text": {"type": "string"}},
                "required": ["orderId", "text"],
            },
        },
    },
]


def http_json(method, url, body=None, headers=None):
    """One JSON request; returns (status, parsed body)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("content-type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read().decode()
            return response.status, (json.loads(text) if text else None)
    except urllib.error.HTTPError as error:
        text = error.read().decode()
        return error.code, (json.loads(text) if text else None)


class OrdersApi:
    def __init__(self, base_url):
        self.base_url = base_url.rstrip("/")

    def call(self, name, args):
        if name == "get_order":
            return http_json("GET", f"{self.base_url}/orders/{args['id']}")
        if name == "refund_order":
            return http_json("POST", f"{self.base_url}/orders/{args['id']}/refund", {"amount": args["amount"]})
        if name == "send_email":
            return http_json("POST", f"{self.base_url}/emails", args)
        return 400, {"error": {"code": "UNKNOWN_TOOL", "message": f"no tool {name}"}}


def sdk_client():
    """The official SDK's chat call, or None when the package is not installed (or not wanted)."""
    if os.environ.get("UNDERSTUDY_AGENT_CLIENT") == "urllib":
        return None
    try:
        from openai import OpenAI
    except ImportError:
        return None
    client = OpenAI()  # OPENAI_BASE_URL and OPENAI_API_KEY from the environment

    def complete(messages):
        completion = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)
        message = completion.choices[0].message
        return message.model_dump(exclude_none=True)

    return complete


def urllib_client():
    base_url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
    key = os.environ.get("OPENAI_API_KEY", "")

    def complete(messages):
        status, body = http_json(
            "POST",
            f"{base_url}/chat/completions",
            {"model": MODEL, "messages": messages, "tools": TOOLS},
            {"authorization": f"Bearer {key}"},
        )
        if status != 200:
            raise RuntimeError(f"the model answered {status}: {json.dumps(body)}")
        return body["choices"][0]["message"]

    return complete


def run(question):
    complete = sdk_client()
    print(f"client: {'openai' if complete else 'urllib'}", flush=True)
    complete = complete or urllib_client()
    api = OrdersApi(os.environ["ORDERS_API_URL"])
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": question}]
    for _ in range(MAX_STEPS):
        message = complete(messages)
        messages.append(message)
        calls = message.get("tool_calls") or []
        if not calls:
            return message.get("content") or ""
        for call in calls:
            args = json.loads(call["function"]["arguments"] or "{}")
            status, result = api.call(call["function"]["name"], args)
            content = json.dumps(result if status < 400 else {"status": status, **(result or {})})
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})
    raise RuntimeError(f"no answer after {MAX_STEPS} steps")


if __name__ == "__main__":
    print(f"answer: {run(sys.argv[1])}", flush=True)
