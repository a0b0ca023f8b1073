// One atomic script per batch: the consumes of every request that arrived in one event-loop
// turn, each exactly as if alone and in arrival order for its subject: ban check, check of every
// window, take from all or count the refusal (and maybe start the ban). Redis runs scripts
// one at a time, so no other request for a subject can interleave. Window keys carry their
// start, so a new window is a new key and old ones expire.
// The consumes of one subject in the same windows, under the same limits, form a group: KEYS
// holds its 5 keys (minute, day, refusals, ban, month) and ARGV its 9 values, the last being the
// `now` of each consume, in order. A group without a monthly quota ('' as perMonth) never reads
// or writes its month key.
// The answer is one string of 6 numbers per consume (outcome, minute, day and month used, ban
// end, ban started), group after group: one reply for ioredis to decode, not a nested array.
// A group's taken consumes are counted in the script and written once, as one INCRBY per
// window: nothing else runs while the script does, so no one sees the counts in between, and
// Redis spends ~1 µs per consume rather than ~4 (two INCRs each).
// One script may touch several subjects' keys: fine on the one Redis REDIS_URL names; on a
// Redis Cluster the store sends one call per subject, whose keys share the `{subject}` tag's slot.
export const CONSUME_MANY = `
local out = {}
for g = 0, #KEYS / 5 - 1 do
  local k = g * 5
  local mKey, dKey, rKey, banKey, moKey = KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], KEYS[k + 5]
  local a = g * 9
  local perMinute, perDay, banMs = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  local minuteTtl, dayTtl, threshold = ARGV[a + 4], ARGV[a + 5], ARGV[a + 6]
  local perMonth, monthTtl = tonumber(ARGV[a + 7]), ARGV[a + 8]
  local m = tonumber(redis.call('GET', mKey) or '0')
  local d = tonumber(redis.call('GET', dKey) or '0')
  local mo = 0
  if perMonth then mo = tonumber(redis.call('GET', moKey) or '0') end
  local m0, d0, mo0 = m, d, mo
  local banned = tonumber(redis.call('GET', banKey) or '0')
  local r = nil
  for nowText in string.gmatch(ARGV[a + 9], '%d+') do
    local now = tonumber(nowText)
    if banned > now then
      out[#out + 1] = '2 ' .. m .. ' ' .. d .. ' ' .. mo .. ' ' .. string.format('%d', banned) .. ' 0'
    elseif m < perMinute and d < perDay and (not perMonth or mo < perMonth) then
      m = m + 1
      d = d + 1
      if perMonth then mo = mo + 1 end
      out[#out + 1] = '0 ' .. m .. ' ' .. d .. ' ' .. mo .. ' 0 0'
    else
      r = r or tonumber(redis.call('GET', rKey) or '0')
      if threshold ~= '' and r >= tonumber(threshold) then
        banned = now + banMs
        redis.call('SET', banKey, string.format('%d', banned), 'PX', banMs)
        redis.call('DEL', rKey)
        r = 0
        out[#out + 1] = '2 ' .. m .. ' ' .. d .. ' ' .. mo .. ' ' .. string.format('%d', banned) .. ' 1'
      else
        r = redis.call('INCR', rKey)
        if r == 1 then redis.call('PEXPIRE', rKey, minuteTtl) end
        out[#out + 1] = '1 ' .. m .. ' ' .. d .. ' ' .. mo .. ' 0 0'
      end
    end
  end
  if m > m0 then
    redis.call('INCRBY', mKey, m - m0)
    if m0 == 0 then redis.call('PEXPIRE', mKey, minuteTtl) end
    redis.call('INCRBY', dKey, d - d0)
    if d0 == 0 then redis.call('PEXPIRE', dKey, dayTtl) end
    if mo > mo0 then
      redis.call('INCRBY', moKey, mo - mo0)
      if mo0 == 0 then redis.call('PEXPIRE', moKey, monthTtl) end
    end
  end
end
return table.concat(out, ' ')
`
