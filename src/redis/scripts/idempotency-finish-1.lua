--[[
idempotency-finish-1: ends one claim of an Idempotency-Key, only while the claim is still ours (a
claim whose holder died expires, and a later request may hold it by now).
KEYS[1] the idempotency record (JSON string)
ARGV[1] the owner token of the claim
ARGV[2] the finished record (JSON) to keep, or '' to drop the claim (the attempt failed: free, and retryable)
ARGV[3] milliseconds the finished record lives
Returns 1 when the claim was ours, 0 otherwise.
]]
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local record = cjson.decode(current)
if record.owner ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return 1
