-- One wrk script for every workload, configured through the environment by bench/lib/wrk.ts:
--   BENCH_KEY        the API key sent as "Authorization: Bearer <key>" on every request
--   BENCH_MODE       static (wrk's own URL, method and body: the cheapest for wrk),
--                    paths (cycle through the paths listed in BENCH_PATHS_FILE: cursor pages),
--                    random-id (GET BENCH_ID_PREFIX .. random integer in 1..BENCH_ID_MAX)
--   BENCH_METHOD     request method (static mode)
--   BENCH_BODY       request body, sent as application/json (static mode)
--   BENCH_STOP_AFTER stop after this many responses: prints "BENCH_DONE" and stops the thread; the
--                    harness then ends wrk with SIGINT rather than waiting out its duration
-- done() prints one line "BENCH_RESULT {json}" that the harness parses; latencies in us.

local mode = os.getenv("BENCH_MODE") or "static"
wrk.headers["Authorization"] = "Bearer " .. (os.getenv("BENCH_KEY") or "")
local method = os.getenv("BENCH_METHOD")
if method and method ~= "" then wrk.method = method end
local body = os.getenv("BENCH_BODY")
if body and body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end

if mode == "paths" then
  local paths = {}
  for line in io.lines(os.getenv("BENCH_PATHS_FILE")) do
    if line ~= "" then paths[#paths + 1] = line end
  end
  local i = 0
  request = function()
    i = i % #paths + 1
    return wrk.format(nil, paths[i])
  end
elseif mode == "random-id" then
  local maxId = tonumber(os.getenv("BENCH_ID_MAX"))
  local prefix = os.getenv("BENCH_ID_PREFIX") or "/v1/pets/"
  math.randomseed(os.time())
  request = function()
    return wrk.format(nil, prefix .. math.random(1, maxId))
  end
end

local stopAfter = tonumber(os.getenv("BENCH_STOP_AFTER") or "")
if stopAfter then
  local answered = 0
  response = function()
    answered = answered + 1
    if answered == stopAfter then
      io.write("BENCH_DONE\n")
      io.flush()
      wrk.thread:stop()
    end
  end
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"durationUs":%d,"bytes":%d,"connectErrors":%d,"readErrors":%d,"writeErrors":%d,"statusErrors":%d,"timeouts":%d,"p50Us":%d,"p90Us":%d,"p99Us":%d,"maxUs":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
