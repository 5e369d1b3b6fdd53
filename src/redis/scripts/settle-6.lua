--[[
settle-6: ends one admission: its reservation is replaced by the actual cost (settle) or simply
dropped (release, for failed requests, which are free), and its concurrency lease is freed.
KEYS[1] account hash        KEYS[2] account leases zset    KEYS[3] account reservations zset
KEYS[4] key hash            KEYS[5] key spend buckets hash KEYS[6] key spend index zset
ARGV[1] mode: settle | release
ARGV[2] now, unix ms        ARGV[3] key id                 ARGV[4] request id
ARGV[5] actual credits (settle)
ARGV[6] idle expiry of this state, ms
ARGV[7] 5h limit  ARGV[8] 1d limit  ARGV[9] 7d limit (credits, for the reset figures)
The charge goes to the spend windows, the key's lifetime spend and the cached wallet, each only
where the counters exist: missing counters are rebuilt from PostgreSQL later, and writing a partial
state here would shadow that rebuild.
Reply: { status, wasOpen (1|0), 0, wallet, spent, leases, reservedKey, reservedAccount,
         used5h, reset5h, used1d, reset1d, used7d, reset7d }; status ok | partial (counters missing)
]]
--- @include "includes/admission-state"

local accountHash, leases, reservations, keyHash, spendHash, spendIndex = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local mode = ARGV[1]
local now = tonumber(ARGV[2])
local keyId = ARGV[3]
local requestId = ARGV[4]
local actual = tonumber(ARGV[5])
local stateTtl = tonumber(ARGV[6])
local limits = { tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]) }
local minute = math.floor(now / 60000)

local wasOpen = drop_reservation(accountHash, requestId)
redis.call('ZREM', reservations, requestId)
redis.call('ZREM', leases, requestId)

local keyPresent = redis.call('HEXISTS', keyHash, 'spent') == 1
local walletPresent = redis.call('HEXISTS', accountHash, 'wallet') == 1

if keyPresent then advance_windows(keyHash, spendHash, spendIndex, minute) end

if mode == 'settle' and actual > 0 then
  if keyPresent then
    redis.call('HINCRBY', keyHash, 'spent', actual)
    redis.call('HINCRBY', spendHash, minute, actual)
    redis.call('ZADD', spendIndex, minute, minute)
    for _, window in ipairs(WINDOWS) do redis.call('HINCRBY', keyHash, 'w' .. window[1], actual) end
  end
  if walletPresent then redis.call('HINCRBY', accountHash, 'wallet', -actual) end
end

local status = 'ok'
if not (keyPresent and walletPresent) then status = 'partial' end
local open = 0
if wasOpen then open = 1 end
local out = { status, open, 0 }
for _, value in ipairs(figures(accountHash, leases, keyHash, spendHash, spendIndex, keyId, minute, now, limits)) do
  table.insert(out, value)
end
if keyPresent then refresh_ttl(stateTtl, keyHash, spendHash, spendIndex) end
if walletPresent then refresh_ttl(stateTtl, accountHash) end
return out
