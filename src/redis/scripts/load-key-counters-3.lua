--[[
load-key-counters-3: (re)builds one key's spend counters from PostgreSQL figures.
KEYS[1] key hash   KEYS[2] key spend buckets hash   KEYS[3] key spend index zset
ARGV[1] mode: if-missing (cold start: a concurrent loader may have won) | replace (rebuild)
ARGV[2] now, unix ms
ARGV[3] lifetime spent credits (api_keys.spent_credits)
ARGV[4] secret HMAC allowed to use the key ('-' for none); only set when absent, so a newer
        rotation recorded meanwhile is never overwritten by an older read
ARGV[5] idle expiry of this state, ms
ARGV[6..] pairs of minute, credits: the key's spend of the last 7 days (usage_rows)
Returns 1 when the counters were written, 0 when they already existed (if-missing).
]]
local keyHash, spendHash, spendIndex = KEYS[1], KEYS[2], KEYS[3]
if ARGV[1] == 'if-missing' and redis.call('HEXISTS', keyHash, 'spent') == 1 then return 0 end

local WINDOWS = { { '5h', 300 }, { '1d', 1440 }, { '7d', 10080 } }
local minute = math.floor(tonumber(ARGV[2]) / 60000)
local totals = { 0, 0, 0 }
redis.call('DEL', spendHash, spendIndex)
for i = 6, #ARGV - 1, 2 do
  local bucket = tonumber(ARGV[i])
  local credits = tonumber(ARGV[i + 1])
  if bucket > minute - 10080 and credits > 0 then
    redis.call('HINCRBY', spendHash, bucket, credits)
    redis.call('ZADD', spendIndex, bucket, bucket)
    for j, window in ipairs(WINDOWS) do
      if bucket >= minute - window[2] + 1 then totals[j] = totals[j] + credits end
    end
  end
end
local fields = { 'spent', ARGV[3] }
for j, window in ipairs(WINDOWS) do
  table.insert(fields, 'w' .. window[1])
  table.insert(fields, string.format('%d', totals[j]))
  table.insert(fields, 't' .. window[1])
  table.insert(fields, string.format('%d', minute - window[2] + 1))
end
redis.call('HSET', keyHash, unpack(fields))
redis.call('HSETNX', keyHash, 'sh', ARGV[4])
local ttl = tonumber(ARGV[5])
redis.call('PEXPIRE', keyHash, ttl)
redis.call('PEXPIRE', spendHash, ttl)
redis.call('PEXPIRE', spendIndex, ttl)
return 1
