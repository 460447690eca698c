#!/usr/bin/env bash
# A support agent as a shell script: an OpenAI Chat Completions tool loop over curl and jq,
# whose tools are commands: `understudy tool call <package>/<operation> --json '{…}'`. It reads
# OPENAI_BASE_URL and OPENAI_API_KEY, and the CLI reads UNDERSTUDY_SERVE_URL, as a test's
# `served.env` sets them. A failed tool's envelope (stderr, exit 1) goes back to the model.
#
# usage: agent.sh "<the customer's question>"
set -euo pipefail

question=$1
tools='[
  {"type":"function","function":{"name":"get_order","description":"Look up an order by id.",
    "parameters":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}},
  {"type":"function","function":{"name":"refund_order","description":"Refund an order (once).",
    "parameters":{"type":"object","properties":{"id":{"type":"string"},"amount":{"type":"number"}},"required":["id","amount"]}}},
  {"type":"function","function":{"name":"send_email","description":"Email the customer of an order.",
    "parameters":{"type":"object","properties":{"orderId":{"type":"string"},"text":{"type":"string"}},"required":["orderId","text"]}}}
]'
messages=$(jq -n --arg q "$question" '[
  {role: "system", content: "You are the support agent of Acme Outfitters. Look up an order before acting on it."},
  {role: "user", content: $q}
]')

for _step in 1 2 3 4 5 6 7 8; do
  request=$(jq -n --argjson m "$messages" --argjson t "$tools" '{model: "gpt-4o-mini", messages: $m, tools: $t}')
  reply=$(curl -sS --fail-with-body "${OPENAI_BASE_URL%/}/chat/completions" \
    -H "authorization: Bearer $OPENAI_API_KEY" -H 'content-type: application/json' -d "$request")
  message=$(jq -c '.choices[0].message' <<<"$reply")
  messages=$(jq -c --argjson msg "$message" '. + [$msg]' <<<"$messages")
  calls=$(jq -c '(.tool_calls // [])[]' <<<"$message")
  if [ -z "$calls" ]; then
    jq -r '.content' <<<"$message"
    exit 0
  fi
  while IFS= read -r call; do
    id=$(jq -r '.id' <<<"$call")
    name=$(jq -r '.function.name' <<<"$call")
    args=$(jq -r '.function.arguments' <<<"$call")
    extra=()
    case $name in
      get_order) operation=orders/orders.get ;;
      # A refund carries an idempotency key: a retried command cannot refund twice.
      refund_order) operation=orders/orders.refund; extra=(--idempotency-key "refund-$(jq -r '.id' <<<"$args")") ;;
      send_email) operation=orders/email.send ;;
      *) operation="" ;;
    esac
    if [ -z "$operation" ]; then
      result="{\"error\":\"no tool $name\"}"
    elif ! result=$(understudy tool call "$operation" --json "$args" "${extra[@]}" 2>&1); then
      result="{\"failed\":$result}"
    fi
    messages=$(jq -c --arg id "$id" --arg c "$result" '. + [{role: "tool", tool_call_id: $id, content: $c}]' <<<"$messages")
  done <<<"$calls"
done
echo "no answer after 8 steps" >&2
exit 1
