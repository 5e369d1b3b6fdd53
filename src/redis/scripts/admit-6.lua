--[[
admit-6: one atomic admission of one request, or a peek at the figures (no admission).
KEYS[1] account hash        KEYS[2] account leases zset    KEYS[3] account reservations zset
KEYS[4] key hash            KEYS[5] key spend buckets hash KEYS[6] key spend index zset
ARGV[1] mode: admit | peek
ARGV[2] now, unix ms (from the caller's clock, so tests can move time)
ARGV[3] key id              ARGV[4] request id (lease and reservation id)
ARGV[5] credits to reserve  ARGV[6] takes a concurrency lease: 1 | 0
ARGV[7] lease ttl ms        ARGV[8] account concurrency cap
ARGV[9] secret HMAC the caller authenticated with
ARGV[10] lifetime key quota credits (0 unlimited)
ARGV[11] 5h limit  ARGV[12] 1d limit  ARGV[13] 7d limit (credits, 0 unlimited)
ARGV[14] idle expiry of this state, ms
Checks in order: counters present (else 'load'), key secret still current ('dead'), concurrency,
5h/1d/7d windows, lifetime quota, wallet. Room means: limit - settled - open reservations > 0.
Reply: { status, detail, detailReset, wallet, spent, leases, reservedKey, reservedAccount,
         used5h, reset5h, used1d, reset1d, used7d, reset7d }
  status ok | load (detail: wallet|key|both) | dead | duplicate | concurrency
         | rate_limit (detail: 5h|1d|7d, detailReset: ms when it has room again) | quota | wallet
]]
--- @include "includes/admission-state"

local accountHash, leases, reservations, keyHash, spendHash, spendIndex = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local mode = ARGV[1]
local now = tonumber(ARGV[2])
local keyId = ARGV[3]
local requestId = ARGV[4]
local reserve = tonumber(ARGV[5])
local takesLease = ARGV[6] == '1'
local leaseTtl = tonumber(ARGV[7])
local cap = tonumber(ARGV[8])
local quota = tonumber(ARGV[10])
local limits = { tonumber(ARGV[11]), tonumber(ARGV[12]), tonumber(ARGV[13]) }
local stateTtl = tonumber(ARGV[14])
local minute = math.floor(now / 60000)

local walletMissing = redis.call('HEXISTS', accountHash, 'wallet') == 0
local keyMissing = redis.call('HEXISTS', keyHash, 'spent') == 0
if walletMissing or keyMissing then
  local which = 'both'
  if not walletMissing then which = 'key' elseif not keyMissing then which = 'wallet' end
  return { 'load', which }
end

local current = redis.call('HGET', keyHash, 'sh')
if current and current ~= ARGV[9] then return { 'dead' } end

sweep_expired(accountHash, leases, reservations, now)
advance_windows(keyHash, spendHash, spendIndex, minute)

local function reply(status, detail, detailReset)
  local out = { status, detail or '', detailReset or 0 }
  for _, value in ipairs(figures(accountHash, leases, keyHash, spendHash, spendIndex, keyId, minute, now, limits)) do
    table.insert(out, value)
  end
  return out
end

if mode == 'peek' then return reply('ok') end

if redis.call('HEXISTS', accountHash, 'r:' .. requestId) == 1 then return { 'duplicate' } end

if takesLease and redis.call('ZCARD', leases) >= cap then return reply('concurrency') end

local reservedKey = num(redis.call('HGET', accountHash, 'kr:' .. keyId))
-- Several exhausted windows: name the one that frees last (waiting for an earlier one would not help).
local deniedName, deniedReset = nil, 0
for i, window in ipairs(WINDOWS) do
  local name, length = window[1], window[2]
  if limits[i] > 0 then
    local used = num(redis.call('HGET', keyHash, 'w' .. name))
    if limits[i] - used - reservedKey <= 0 then
      local reset = window_reset_ms(spendHash, spendIndex, minute - length + 1, length, used + reservedKey - limits[i], now + leaseTtl)
      if deniedName == nil or reset > deniedReset then deniedName, deniedReset = name, reset end
    end
  end
end
if deniedName then return reply('rate_limit', deniedName, deniedReset) end

if quota > 0 and quota - num(redis.call('HGET', keyHash, 'spent')) - reservedKey <= 0 then return reply('quota') end

if num(redis.call('HGET', accountHash, 'wallet')) - num(redis.call('HGET', accountHash, 'reserved')) <= 0 then return reply('wallet') end

local expiry = now + leaseTtl
local lease = '0'
if takesLease then
  redis.call('ZADD', leases, expiry, requestId)
  lease = '1'
end
redis.call('ZADD', reservations, expiry, requestId)
redis.call('HSET', accountHash, 'r:' .. requestId, keyId .. ':' .. string.format('%d', reserve) .. ':' .. lease)
if reserve > 0 then
  redis.call('HINCRBY', accountHash, 'reserved', reserve)
  redis.call('HINCRBY', accountHash, 'kr:' .. keyId, reserve)
end
refresh_ttl(stateTtl, accountHash, leases, reservations, keyHash, spendHash, spendIndex)
return reply('ok')
