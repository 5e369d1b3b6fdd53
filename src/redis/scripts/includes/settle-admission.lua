--[[
The body of settle-6 and settle-batch-n (see settle-6.lua for the keys and arguments), inlined
after includes/admission-state: ends one admission and returns the reply. K and A are that
admission's keys and arguments (KEYS and ARGV for settle-6; a slice of them in a batch).
]]
local function settle_admission(K, A)
  local accountHash, leases, reservations, keyHash, spendHash, spendIndex = K[1], K[2], K[3], K[4], K[5], K[6]
  local mode = A[1]
  local now = tonumber(A[2])
  local keyId = A[3]
  local requestId = A[4]
  local actual = tonumber(A[5])
  local stateTtl = tonumber(A[6])
  local limits = { tonumber(A[7]), tonumber(A[8]), tonumber(A[9]) }
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
end
