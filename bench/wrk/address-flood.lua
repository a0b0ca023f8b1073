-- The address flood (bench/address-flood.ts): keyless GET /v1/pets, each from a client address
-- never seen before, named in X-Forwarded-For (the bench is the one trusted proxy, TRUST_PROXY=1):
-- request n comes from FLOOD_FROM + n, written as 10.a.b.c. Once FLOOD_COUNT requests have been
-- answered the thread stops and writes FLOOD_DONE_FILE, and the harness ends wrk with SIGINT
-- (wrk's own stop waits out -d). The last few in flight add a handful more addresses.
-- done() prints one line "FLOOD_RESULT {json}"; latencies in us.

local from = tonumber(os.getenv("FLOOD_FROM") or "0")
local count = tonumber(os.getenv("FLOOD_COUNT") or "1000")
local sent = 0
local answered = 0

request = function()
  local n = from + sent
  sent = sent + 1
  local address = string.format("10.%d.%d.%d", math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256)
  return wrk.format("GET", "/v1/pets", { ["X-Forwarded-For"] = address })
end

response = function(status)
  answered = answered + 1
  if answered == count then
    wrk.thread:stop()
    local marker = io.open(os.getenv("FLOOD_DONE_FILE"), "w")
    marker:write("done\n")
    marker:close()
  end
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'FLOOD_RESULT {"requests":%d,"durationUs":%d,"errors":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
