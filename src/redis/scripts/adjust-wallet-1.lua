--[[
adjust-wallet-1: applies a wallet change (top-up, refund, adjustment, hold) to the cached wallet,
only when the cache is loaded: a missing cache is loaded from PostgreSQL, which already has it.
KEYS[1] account hash
ARGV[1] signed credits
Returns the cached wallet after the change, or false when no cache is loaded.
]]
if redis.call('HEXISTS', KEYS[1], 'wallet') == 0 then return false end
return redis.call('HINCRBY', KEYS[1], 'wallet', ARGV[1])
