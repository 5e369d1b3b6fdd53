--[[
settle-batch-n: ends several admissions of one shard in one call (the settlements that one turn of
an API process's event loop produced). For each admission, in order and atomically with the rest of
the call: its usage event appended to the shard's usage stream, its rider (a request record) to the
shard's request-log stream, then settle-6 on its counters.
ARGV[1] count n of admissions; admission i (0-based) has
  KEYS[8i+1 .. 8i+6] as settle-6        KEYS[8i+7] the usage stream of its shard
  KEYS[8i+8] the stream its rider goes to (the request-log stream of its shard)
  ARGV[11i+2 .. 11i+10] as settle-6's ARGV[1..9]
  ARGV[11i+11] its usage event (JSON); '' appends nothing
  ARGV[11i+12] its rider (a JSON array of request records, field 'b'); '' appends nothing
Every key carries the shard's hash tag, so the call stays in one slot on a cluster.
Reply: one entry per admission: settle-6's reply followed by the usage entry id and the rider's
entry id ('' when nothing was appended), or { 'error', message } for an admission that failed (the
others are not affected). A failed admission's appends may have been made: its holders append them
again, and the workers write nothing twice for one request id.
]]
--- @include "includes/admission-state"
--- @include "includes/settle-admission"

local KEYS_EACH, ARGS_EACH = 8, 11
local count = tonumber(ARGV[1])
local replies = {}
for i = 0, count - 1 do
  local k, a = {}, {}
  for j = 1, KEYS_EACH do k[j] = KEYS[i * KEYS_EACH + j] end
  for j = 1, ARGS_EACH do a[j] = ARGV[1 + i * ARGS_EACH + j] end
  local ok, reply = pcall(function()
    local entryId, riderId = '', ''
    if a[10] ~= '' then entryId = redis.call('XADD', k[7], '*', 'e', a[10]) end
    if a[11] ~= '' then riderId = redis.call('XADD', k[8], '*', 'b', a[11]) end
    local out = settle_admission(k, a)
    table.insert(out, entryId)
    table.insert(out, riderId)
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
