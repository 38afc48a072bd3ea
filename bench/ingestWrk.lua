-- wrk script of `npm run bench:ingest`: cycles pre-signed requests read from a file (one per line:
-- timestamp, signature, body, tab-separated), so the generator spends no CPU on JSON or HMAC.
--   wrk -s bench/ingestWrk.lua URL -- REQUESTS_FILE
local requests = {}
local index = 0

function init(args)
  for line in io.lines(args[1]) do
    local timestamp, signature, body = line:match("^([^\t]*)\t([^\t]*)\t(.*)$")
    requests[#requests + 1] = wrk.format("POST", "/webhooks", {
      ["Content-Type"] = "application/json",
      ["justifi-timestamp"] = timestamp,
      ["justifi-signature"] = signature,
    }, body)
  end
end

function request()
  index = index % #requests + 1
  return requests[index]
end

-- One JSON line for bench/ingestWrk.ts; latencies in microseconds, as wrk keeps them.
function done(summary, latency, _)
  local errors = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationMicros":%d,"non2xx":%d,"socketErrors":%d,"p50":%d,"p99":%d,"max":%d}\n',
    summary.requests, summary.duration, errors.status,
    errors.connect + errors.read + errors.write + errors.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
