--[[
settle-record-7: settle-6 and, in the same atomic step, the call's usage event appended to the
usage stream that billing workers consume (one Redis round trip at the end of a paid call).
KEYS[1..6] as settle-6              KEYS[7] usage stream
ARGV[1..9] as settle-6              ARGV[10] the usage event (JSON); '' appends nothing
Reply: settle-6's reply, then the stream entry id ('' when nothing was appended).
]]
--- @include "includes/admission-state"
--- @include "includes/settle-admission"

local entryId = ''
if ARGV[10] ~= '' then entryId = redis.call('XADD', KEYS[7], '*', 'e', ARGV[10]) end
local out = settle_admission()
table.insert(out, entryId)
return out
