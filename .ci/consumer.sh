#!/usr/bin/env bash
# Installs the packed package into a scratch project and runs a real agent test there
# with `preset: 'jest-understudy'`, and one with the Vitest plugin, under the given Node and
# msw/openai/vitest versions.
# usage: consumer.sh <tarball> <node-bin-dir> <msw@N> <openai@N> <vitest@N>
set -euo pipefail
tarball=$1 node_dir=$2 msw=$3 openai=$4 vitest=$5
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cp "$here"/consumer/* "$work"/
cd "$work"
export PATH="$node_dir:$PATH"
cat > package.json <<JSON
{ "name": "understudy-consumer", "private": true, "scripts": { "test": "jest" } }
JSON
# Packages the installed-package cases (__tests__/installed/cases) use besides the SDK (aimock: the
# ordered-blocks cases read the example fixture file its package ships).
# typescript and @types/node: the Vitest fixtures' types are checked with tsc in the consumer project.
case_deps=(@copilotkit/aimock@1 undici@7 ws@8 @aws-sdk/client-bedrock-runtime@3 @modelcontextprotocol/sdk@1 express@5 supertest@7 @anthropic-ai/sdk@1 playwright-core@1 zod@4 @swc/core@1 @swc/jest@0 ai@7 @ai-sdk/openai@4 typescript@7 @types/node@24)
# The Gemini SDK and the Agents SDK in the majors that go with this openai (and its Node):
# @google/genai 3 and @openai/agents 0.15+ (on openai 7) need Node >= 22, and so does
# @langchain/openai 1 (LangGraph's model in the Vitest frameworks case, which runs from Node 22),
# and @mastra/core 1 (Node >= 22.13), and so does `ai` 7 with its providers (the ordered-blocks AI SDK
# case). The frameworks, Mastra and AI SDK cases cannot run there: that job leaves them out instead of
# skipping them.
left_out=()
if [ "$openai" = openai@6 ]; then
  case_deps+=(@google/genai@2 @openai/agents@0.12)
  # Vitest 4.1's --merge-reports finds no test files when the blobs come from other checkout paths.
  left_out=(--testPathIgnorePatterns '/__tests__/installed/(vitest-frameworks|mastra|vitest-merge-reports|ordered-blocks-ai-sdk)\.test\.ts$')
else
  case_deps+=(@google/genai@3 @openai/agents@0.20 @ai-sdk/anthropic@4 @ai-sdk/google@4 @langchain/core@1 @langchain/langgraph@1 @langchain/openai@1 @mastra/core@1)
fi
# Ollama's own client for the ollama cases; ChatOllama (@langchain/ollama) needs @langchain/core 1,
# which the openai@6 job does not install, so that job leaves the ChatOllama case out.
case_deps+=(ollama@0)
# Node's global WebSocket comes with Node 22: the WebSocket and Realtime drivers' cases on it (and the
# Agents SDK's Responses WebSocket transport, which needs it) cannot run on Node 20, so that job leaves
# those drivers out, and recording a socket session, which reaches the provider over that WebSocket.
# Sockets the `ws` package opens run there under msw 2 (ws-package, gemini-live).
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 22 ]; then
  left_out+=(--testPathIgnorePatterns '/__tests__/installed/(sockets|realtime|record-sockets|session-timeline)\.test\.ts$')
fi
if [ "$openai" = openai@6 ]; then
  left_out+=(--testPathIgnorePatterns '/__tests__/installed/ollama-langchain\.test\.ts$')
else
  case_deps+=(@langchain/ollama@1)
fi
npm install --no-audit --no-fund --silent "$tarball" jest@30 "$vitest" "$msw" "$openai" "${case_deps[@]}"
echo "   node $(node --version); installed: $(npm ls msw openai vitest jest-understudy --depth=0 --parseable=false 2>/dev/null | grep -oE '(msw|openai|vitest|jest-understudy)@[^ ]+' | tr '\n' ' ')"
CI=true timeout --kill-after=30s 10m npm test --silent

# The same project's Vitest side: `plugins: [understudy()]` from jest-understudy/vitest.
CI=true timeout --kill-after=30s 10m node node_modules/vitest/vitest.mjs run --config vitest.config.mjs

# The installed bin: validates a good file (exit 0) and a bad one (exit 1, naming the JSON path).
npx --no-install understudy --help >/dev/null
npx --no-install understudy validate shared.fixture.json
printf '{"fixtures":[{"match":{},"response":{"text":"hi"}}]}' > bad.fixture.json
if npx --no-install understudy validate bad.fixture.json > validate.out 2>&1; then
  echo "understudy validate accepted a bad fixture file" >&2; exit 1
fi
grep -q 'did you mean "content"' validate.out || { cat validate.out >&2; exit 1; }

# The repository's installed-package suites (__tests__/installed), now against this real
# install: the driver runs on this Node and spawns this project's Jest for every case, every case
# under every runner (the matrix; `npm test` in the main job runs each under one).
echo "   installed-package suites against this install"
cd "$repo"
# As npm test runs it: the driver's own ES module imports need the flag (each child run sets its own).
UNDERSTUDY_INSTALLED_DIR="$work" CI=true UNDERSTUDY_RUNNERS=all NODE_OPTIONS=--experimental-vm-modules timeout --kill-after=30s 30m node node_modules/jest/bin/jest.js --selectProjects installed --ci "${left_out[@]}"
