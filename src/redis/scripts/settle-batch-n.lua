--[[
settle-batch-n: ends several admissions of one shard in one call (the settlements that one turn of
an API process's event loop produced). For each admission, in order and atomically with the rest of
the call: its usage event appended to the shard's usage stream, then settle-6 on its counters.
ARGV[1] count n of admissions; admission i (0-based) has
  KEYS[7i+1 .. 7i+6] as settle-6        KEYS[7i+7] the usage stream of its shard
  ARGV[10i+2 .. 10i+10] as settle-6's ARGV[1..9]
  ARGV[10i+11] its usage event (JSON); '' appends nothing
Every key carries the shard's hash tag, so the call stays in one slot on a cluster.
Reply: one entry per admission: settle-6's reply followed by the stream entry id ('' when nothing
was appended), or { 'error', message } for an admission that failed (the others are not affected).
]]
--- @include "includes/admission-state"
--- @include "includes/settle-admission"

local count = tonumber(ARGV[1])
local replies = {}
for i = 0, count - 1 do
  local k, a = {}, {}
  for j = 1, 7 do k[j] = KEYS[i * 7 + j] end
  for j = 1, 10 do a[j] = ARGV[1 + i * 10 + j] end
  local ok, reply = pcall(function()
    local entryId = ''
    if a[10] ~= '' then entryId = redis.call('XADD', k[7], '*', 'e', a[10]) end
    local out = settle_admission(k, a)
    table.insert(out, entryId)
    return out
  end)
  if ok then
    replies[i + 1] = reply
  elseif type(reply) == 'table' and reply.err then
    replies[i + 1] = { 'error', reply.err }
  else
    replies[i + 1] = { 'error', tostring(reply) }
  end
end
return replies
