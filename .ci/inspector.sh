#!/usr/bin/env bash
# The MCP Inspector (npm @modelcontextprotocol/inspector, pinned in
# .ci/inspector/package-lock.json), in CLI mode, lists and calls citecheck's
# tools over stdio (`citecheck mcp`) and streamable HTTP (`citecheck serve`,
# /mcp). Every call's structured content must be the answer `citecheck run`
# (for explain, `citecheck run --explain`) gives in-process for the same
# input: the contract's examples and a refused input. Any difference fails CI.
set -euo pipefail
cd "$(dirname "$0")/.."

(cd .ci/inspector && npm ci --no-audit --no-fund --loglevel=error)
inspector=.ci/inspector/node_modules/.bin/mcp-inspector

work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

bin=$work/citecheck
# Built as the image and the release archives are (build/citecheck.sh).
build/citecheck.sh "$bin"

# The inputs: each example of the embedded contract, and one the tool refuses.
"$bin" contract | node -e '
  const fs = require("fs");
  const c = JSON.parse(fs.readFileSync(0, "utf8"));
  c.examples.forEach((e, i) => fs.writeFileSync(process.argv[1] + "/input-" + i + ".json", JSON.stringify(e.input)));
  fs.writeFileSync(process.argv[1] + "/input-refused.json", JSON.stringify({sources: [], citations: []}));
' "$work"

# same FILE_A FILE_B WHAT: fail unless the two JSON texts are equal values.
same() {
  node -e '
    const fs = require("fs"), util = require("util");
    const [a, b, what] = process.argv.slice(1);
    const x = JSON.parse(fs.readFileSync(a, "utf8")), y = JSON.parse(fs.readFileSync(b, "utf8"));
    if (!util.isDeepStrictEqual(x, y)) {
      console.error("inspector: " + what + ": got " + JSON.stringify(x) + "\n           want " + JSON.stringify(y));
      process.exit(1);
    }
  ' "$1" "$2" "$3"
}

# check TRANSPORT TARGET…: tools/list names check_quotes, execute and explain; tools/call
# of each answers as run (--explain).
check() {
  local transport=$1; shift
  "$inspector" --cli "$@" --method tools/list > "$work/list.json"
  node -e '
    const l = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const names = l.tools.map(t => t.name);
    if (names.join(",") !== "check_quotes,execute,explain") { console.error("inspector: tools/list: " + names); process.exit(1); }
  ' "$work/list.json"
  local n=0
  for tool in execute explain; do
    local flags=()
    [ "$tool" = explain ] && flags=(--explain)
    for input in "$work"/input-*.json; do
      # The in-process answer is the expected one (exit 1 or 2 is an answer too).
      "$bin" run citation-batch-check 1.0.0 "${flags[@]}" --input "$input" > "$work/want.json" || true
      # A refused input is a tool error (isError), on which the CLI exits non-zero.
      "$inspector" --cli "$@" --method tools/call --tool-name "$tool" \
        --tool-arg id=citation-batch-check version=1.0.0 "input=$(cat "$input")" > "$work/call.json" || true
      node -e '
        const fs = require("fs");
        const r = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
        fs.writeFileSync(process.argv[2], JSON.stringify(r.structuredContent));
        fs.writeFileSync(process.argv[3], r.content[0].text);
        const want = JSON.parse(fs.readFileSync(process.argv[4], "utf8"));
        if (!!r.isError !== ("error" in want)) { console.error("inspector: isError " + r.isError + " for " + JSON.stringify(want)); process.exit(1); }
      ' "$work/call.json" "$work/structured.json" "$work/text.json" "$work/want.json"
      same "$work/structured.json" "$work/want.json" "$transport $tool $(basename "$input") structured content"
      same "$work/text.json" "$work/want.json" "$transport $tool $(basename "$input") text content"
      n=$((n + 1))
    done
  done
  echo "inspector: $transport: tools/list and $n tools/call answers (execute and explain) as citecheck run"
}

check stdio "$bin" mcp

"$bin" serve --addr 127.0.0.1:0 > "$work/serve.out" 2> "$work/serve.log" &
server_pid=$!
for _ in $(seq 100); do
  addr=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$work/serve.out" | head -1 || true)
  [ -n "$addr" ] && break
  sleep 0.1
done
[ -n "$addr" ] || { echo "inspector: citecheck serve did not start"; cat "$work/serve.log"; exit 1; }
check http "$addr/mcp" --transport http
