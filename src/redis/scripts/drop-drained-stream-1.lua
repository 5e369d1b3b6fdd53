--[[
drop-drained-stream-1: deletes a stream once it is drained: no entry left and none pending in the
consumer group ARGV[1]. Atomic, so an entry appended meanwhile (by an older process still writing to
it) keeps the stream.
KEYS[1] the stream
ARGV[1] the consumer group
Reply: 1 when deleted, 0 when kept.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('XLEN', KEYS[1]) > 0 then return 0 end
local ok, pending = pcall(redis.call, 'XPENDING', KEYS[1], ARGV[1])
if ok and tonumber(pending[1]) > 0 then return 0 end
return redis.call('DEL', KEYS[1])
