/**
 * The one Lua script per admission (Redis runs it atomically): the replay check, every GCRA bucket
 * (buckets.ts's `decide`, line for line), then the writes, all or nothing. The app's clock comes in as
 * ARGV (never Redis TIME), so frozen-clock tests and several instances agree with the memory store.
 * Numbers are written with `%.0f`: Lua 5.1's tostring keeps only 14 digits and epoch µs have 16.
 *
 * KEYS: the n bucket keys, then the replay key when there is one.
 * ARGV: now µs, n, has replay (0|1), replay TTL ms, then per bucket: interval µs, tolerance µs.
 * Returns {0} admitted, {1, wait µs as text, bucket index from 1} refused, {2} replayed.
 * Every key expires once it would read as fresh anyway (TAT ≤ now) plus a margin, so Redis holds only
 * live state: the margin keeps a bucket alive when instance clocks (or a test's frozen clock) run a
 * little behind Redis's, which measures the expiry.
 */
export const EXPIRY_MARGIN_MS = 30_000;

export const ADMIT_LUA = `
local now = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local replay = ARGV[3] == '1'
if replay and redis.call('EXISTS', KEYS[n + 1]) == 1 then return {2} end
local tats, wait, index = {}, 0, 0
for i = 1, n do
  local interval = tonumber(ARGV[3 + 2 * i])
  local tolerance = tonumber(ARGV[4 + 2 * i])
  local tat = tonumber(redis.call('GET', KEYS[i]) or '0') or 0
  if tat < now then tat = now end
  local w = tat - tolerance - now
  if w > wait then wait, index = w, i end
  tats[i] = tat + interval
end
if index > 0 then return {1, string.format('%.0f', wait), index} end
for i = 1, n do
  local ttl = math.ceil((tats[i] - now) / 1000) + ${EXPIRY_MARGIN_MS}
  redis.call('SET', KEYS[i], string.format('%.0f', tats[i]), 'PX', ttl)
end
if replay then redis.call('SET', KEYS[n + 1], '1', 'PX', tonumber(ARGV[4]) + ${EXPIRY_MARGIN_MS}) end
return {0}
`;

/** KEYS[1] the counter; ARGV: memory ms. Returns the consecutive failure count. */
export const FAILURE_LUA = `
local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return n
`;
