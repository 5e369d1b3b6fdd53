-- An upstream account failed (issue 22 item 4): one call shares it with every API process.
-- KEYS[1]: hash of cooldowns (field: account id, value: cooling down until, epoch ms)
-- KEYS[2]: hash of this minute's failures (field: "<account id>:<reason>", value: count)
-- ARGV: account id, until (ms), reason, pub/sub channel, minute hash TTL (seconds)
local current = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if tonumber(ARGV[2]) > current then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
redis.call('HINCRBY', KEYS[2], ARGV[1] .. ':' .. ARGV[3], 1)
redis.call('EXPIRE', KEYS[2], ARGV[5])
redis.call('PUBLISH', ARGV[4], ARGV[1] .. ':' .. ARGV[2])
return 1
