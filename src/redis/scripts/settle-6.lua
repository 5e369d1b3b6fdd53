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
--- @include "includes/settle-admission"

return settle_admission(KEYS, ARGV)
