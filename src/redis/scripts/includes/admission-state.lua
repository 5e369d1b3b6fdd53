--[[
Shared by admit-6.lua and settle-6.lua (inlined where they say `--- @include "includes/admission-state"`).

Layout (every key carries the account's hash tag {a<accountId>}):
  account hash   wallet (cached credits), reserved (open reservations of the account),
                 kr:<keyId> (open reservations of one key), r:<requestId> = "<keyId>:<credits>:<lease 0|1>"
  leases zset    requestId -> expiry ms, only admissions holding a concurrency lease
  reservations   requestId -> expiry ms, every open admission (a dead process's reservations expire too)
  key hash       spent (lifetime credits), sh (secret HMAC allowed to use the key, '-' = none),
                 w5h/w1d/w7d (running totals), t5h/t1d/t7d (first minute each total still includes)
  spend hash     minute -> credits settled in that minute
  spend index    minute -> minute (sorted view of the spend hash)
Windows are truly rolling at minute granularity: at minute c a window of L minutes holds the
buckets c-L+1 .. c; bucket m leaves it at the start of minute m+L.
]]
local WINDOWS = { { '5h', 300 }, { '1d', 1440 }, { '7d', 10080 } }
local LONGEST = 10080

local function num(value)
  return tonumber(value) or 0
end

-- Removes buckets out of every window, in chunks (unpack has a stack limit).
local function prune(spendHash, spendIndex, minute)
  local oldest = minute - LONGEST
  while true do
    local gone = redis.call('ZRANGEBYSCORE', spendIndex, '-inf', oldest, 'LIMIT', 0, 1000)
    if #gone == 0 then return end
    redis.call('HDEL', spendHash, unpack(gone))
    redis.call('ZREM', spendIndex, unpack(gone))
  end
end

-- Moves each window's start to the current minute, subtracting the buckets that left it.
local function advance_windows(keyHash, spendHash, spendIndex, minute)
  for _, window in ipairs(WINDOWS) do
    local name, length = window[1], window[2]
    local first = minute - length + 1
    local tail = tonumber(redis.call('HGET', keyHash, 't' .. name))
    if tail == nil then
      redis.call('HSET', keyHash, 't' .. name, first)
    elseif tail < first then
      local offset = 0
      local sum = 0
      while true do
        local expired = redis.call('ZRANGEBYSCORE', spendIndex, tail, first - 1, 'LIMIT', offset, 1000)
        if #expired == 0 then break end
        for _, value in ipairs(redis.call('HMGET', spendHash, unpack(expired))) do sum = sum + num(value) end
        offset = offset + #expired
      end
      if sum ~= 0 then redis.call('HINCRBY', keyHash, 'w' .. name, -sum) end
      redis.call('HSET', keyHash, 't' .. name, first)
    end
  end
  prune(spendHash, spendIndex, minute)
end

-- When more than `need` credits of the window will have left it: the end of the bucket that
-- crosses that amount; `fallback` when the buckets alone never get there (reservations).
local function window_reset_ms(spendHash, spendIndex, first, length, need, fallback)
  local cumulative = 0
  local offset = 0
  while true do
    local batch = redis.call('ZRANGEBYSCORE', spendIndex, first, '+inf', 'LIMIT', offset, 64)
    if #batch == 0 then return fallback end
    local values = redis.call('HMGET', spendHash, unpack(batch))
    for i, minute in ipairs(batch) do
      cumulative = cumulative + num(values[i])
      if cumulative > need then return (tonumber(minute) + length) * 60000 end
    end
    offset = offset + #batch
  end
end

-- Drops one open admission's reservation; true when it was still open.
local function drop_reservation(accountHash, requestId)
  local data = redis.call('HGET', accountHash, 'r:' .. requestId)
  if not data then return false end
  redis.call('HDEL', accountHash, 'r:' .. requestId)
  local keyId, amount = string.match(data, '^(%d+):(%d+)')
  amount = tonumber(amount)
  if amount and amount > 0 then
    redis.call('HINCRBY', accountHash, 'reserved', -amount)
    if redis.call('HINCRBY', accountHash, 'kr:' .. keyId, -amount) <= 0 then
      redis.call('HDEL', accountHash, 'kr:' .. keyId)
    end
  end
  return true
end

-- Expired admissions of a dead (or stuck) process give back their lease and reservation.
local function sweep_expired(accountHash, leases, reservations, now)
  while true do
    local expired = redis.call('ZRANGEBYSCORE', reservations, '-inf', now, 'LIMIT', 0, 500)
    if #expired == 0 then break end
    for _, requestId in ipairs(expired) do drop_reservation(accountHash, requestId) end
    redis.call('ZREM', reservations, unpack(expired))
  end
  redis.call('ZREMRANGEBYSCORE', leases, '-inf', now)
end

-- The figures behind the accounting headers (settled spend; reservations reported apart).
-- limits: { 5h, 1d, 7d } in credits (0 unlimited). Returns the reply tail:
-- wallet, spent, leases, reservedKey, reservedAccount, used5h, reset5h, used1d, reset1d, used7d, reset7d
local function figures(accountHash, leases, keyHash, spendHash, spendIndex, keyId, minute, now, limits)
  local reply = {
    num(redis.call('HGET', accountHash, 'wallet')),
    num(redis.call('HGET', keyHash, 'spent')),
    redis.call('ZCARD', leases),
    num(redis.call('HGET', accountHash, 'kr:' .. keyId)),
    num(redis.call('HGET', accountHash, 'reserved')),
  }
  for i, window in ipairs(WINDOWS) do
    local name, length = window[1], window[2]
    local used = num(redis.call('HGET', keyHash, 'w' .. name))
    local reset = 0
    if limits[i] > 0 then
      local need = used - limits[i]
      if need < 0 then need = 0 end
      reset = window_reset_ms(spendHash, spendIndex, minute - length + 1, length, need, now)
    end
    table.insert(reply, used)
    table.insert(reply, reset)
  end
  return reply
end

local function refresh_ttl(ttl, ...)
  for _, key in ipairs({ ... }) do redis.call('PEXPIRE', key, ttl) end
end
