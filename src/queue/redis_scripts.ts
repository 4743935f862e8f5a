/**
 * The Redis queue's Lua scripts. Every step that reads and then writes is one script, so it is atomic: two
 * processes can never take the same request, and a page's links are queued in the same step that releases it.
 * The key layout and each script's part in a process's life are described in docs/design/distributed.md.
 *
 * Keys, for a crawl whose prefix is P (`netweir:{KEY}`, see keyPrefix):
 *   P:prios          sorted set of the priorities that have requests waiting (score = priority)
 *   P:hosts:PRIO     list: the hosts with requests of that priority waiting, in the order leases visit them
 *   P:q:PRIO:HOST    list of encoded requests of that priority to that host, oldest first
 *   P:seen:L:B       hash: the duplicate filter at level L, fingerprints bucketed by their first L+2 hex digits (B)
 *   P:held:PID       hash: lease id -> "PRIO\nHOST\n" + encoded request, what process PID has taken and not finished
 *   P:procs          sorted set: process id -> time of its last heartbeat (ms, Redis's clock)
 *   P:meta           hash: seen (filter size), queued (ever queued), seq (last lease id), idle_since (ms)
 *   P:bad:...        keys found where a list should be and set aside (written by hand, say)
 *   P:busy           hash, with politeness_scope=crawl: host -> requests of it held by any process
 *   P:last           hash, with politeness_scope=crawl: host -> time (ms) its last request leased is due to start
 *   P:delay          hash, with politeness_scope=crawl: host -> the delay (ms) processes found for it (Crawl-delay)
 *
 * Invariant: a host is in P:hosts:PRIO exactly while P:q:PRIO:HOST exists (Redis deletes an emptied list), and a
 * priority is in P:prios while its host list exists.
 */

/** Shared helpers, prepended to every script. ARGV[1] is always the prefix P. */
const COMMON = `
local P = ARGV[1]
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function unhex(h)
  return (string.gsub(h, '..', function(cc) return string.char(tonumber(cc, 16)) end))
end
-- The duplicate filter: fingerprints in hashes ("buckets") named after the fingerprint's first hex digits, each
-- kept small enough to stay a listpack (about 20 bytes a fingerprint, plus about 100 for the bucket). As the filter
-- fills it starts a new level with 16 times the buckets of the last: level L's buckets are named by 2 + L hex
-- digits, and it takes fingerprints until its buckets hold 64 each on average. A new level's buckets start
-- sparse, which is where their own cost shows; growing by 16 at a time keeps that under about 40 bytes a
-- fingerprint at every size, at the price of one lookup per older level (five levels reach a billion).
local LEVEL_ENDS = {16384, 278528, 4472832, 71581696}
local function level_for(count)
  for l = 1, #LEVEL_ENDS do
    if count < LEVEL_ENDS[l] then return l - 1 end
  end
  return #LEVEL_ENDS
end
-- A bucket is named by the hex digits, its field is the rest of the 16 bytes (from the byte the name ends in).
local function seen_key(level, fphex)
  return P .. ':seen:' .. level .. ':' .. string.sub(fphex, 1, level + 2)
end
local function seen_field(level, fp)
  return string.sub(fp, math.floor((level + 2) / 2) + 1)
end
-- Whether a fingerprint (fphex: 32 hex digits; fp: its 16 bytes) is in the filter, adding it at the current level
-- if not. The older levels are looked up; at the current one HSET both adds and answers (0: it was there).
local function seen_or_add(fphex, fp, level)
  for l = 0, level - 1 do
    if redis.call('HEXISTS', seen_key(l, fphex), seen_field(l, fp)) == 1 then return true end
  end
  return redis.call('HSET', seen_key(level, fphex), seen_field(level, fp), '') == 0
end
-- Adding requests goes in three steps, so that a call adding several payloads (a FINISH of several pages) reads
-- and writes the shared counters once: batch() starts, add(b, i) adds the payload ARGV[i], flush(b) writes.
--
-- A payload holds one request a line, "FINGERPRINT_HEX PRIORITY DONT_FILTER HOST ENCODED". One string for a whole
-- batch rather than five arguments a request keeps the client's memory flat while it waits. A request the filter
-- has seen is left out unless DONT_FILTER is '1'. Per request it costs one HSET, after a HEXISTS for each older
-- filter level; each host's list gets one RPUSH per priority, and the counters are written once for the batch.
local function batch()
  return { seen = tonumber(redis.call('HGET', P .. ':meta', 'seen') or '0'), fresh = 0, added = 0, lists = {}, order = {} }
end
-- Adds the payload ARGV[i] to batch b: into the filter at once (so a duplicate later in the call is caught), onto
-- the queue at flush. Returns how many of its requests will be queued.
local function add(b, i)
  local payload = ARGV[i] or ''
  local added, pos, len = 0, 1, string.len(payload)
  while pos <= len do
    local nl = string.find(payload, '\\n', pos, true) or (len + 1)
    local s1 = string.find(payload, ' ', pos, true)
    local s2 = s1 and string.find(payload, ' ', s1 + 1, true)
    local s3 = s2 and string.find(payload, ' ', s2 + 1, true)
    local s4 = s3 and string.find(payload, ' ', s3 + 1, true)
    if s4 and s4 < nl and s4 > s3 + 1 then
      local prio = string.sub(payload, s1 + 1, s2 - 1)
      if tonumber(prio) ~= nil then
        local fphex = string.lower(string.sub(payload, pos, s1 - 1))
        local queue = true
        if seen_or_add(fphex, unhex(fphex), level_for(b.seen + b.fresh)) then
          queue = string.sub(payload, s2 + 1, s3 - 1) == '1'
        else
          b.fresh = b.fresh + 1
        end
        if queue then
          local host = string.sub(payload, s3 + 1, s4 - 1)
          local name = prio .. ':' .. host
          local list = b.lists[name]
          if not list then
            list = { prio = prio, host = host }
            b.lists[name] = list
            b.order[#b.order + 1] = name
          end
          list[#list + 1] = string.sub(payload, s4 + 1, nl - 1)
          added = added + 1
        end
      end
    end
    pos = nl + 1
  end
  b.added = b.added + added
  return added
end
-- Writes batch b: its requests onto their hosts' lists (in order; a host new to a priority joins the end of its
-- host list), the counters, the priority set.
local function flush(b)
  if b.fresh > 0 then redis.call('HINCRBY', P .. ':meta', 'seen', b.fresh) end
  if b.added == 0 then return end
  local prios = {}
  for _, name in ipairs(b.order) do
    local list = b.lists[name]
    local length = 0
    -- unpack() of a few thousand values at most: Lua's C stack has room for about 8,000.
    for first = 1, #list, 1000 do
      length = redis.call('RPUSH', P .. ':q:' .. name, unpack(list, first, math.min(first + 999, #list)))
    end
    if length == #list then redis.call('RPUSH', P .. ':hosts:' .. list.prio, list.host) end
    prios[list.prio] = true
  end
  for prio in pairs(prios) do redis.call('ZADD', P .. ':prios', tonumber(prio), prio) end
  redis.call('HINCRBY', P .. ':meta', 'queued', b.added)
  redis.call('HDEL', P .. ':meta', 'idle_since')
end
-- Puts a held entry ("PRIO\\nHOST\\n" .. encoded) back at the front of its host's list, bypassing the filter, and the
-- host at the front of its priority's host list: it was taken first, it goes first. Returns 0 for an entry that is
-- not in that shape (counted as bad by whoever asked), else 1.
-- The host of a held entry, or nil when it is not in that shape.
local function held_host(entry)
  local nl = string.find(entry, '\\n', 1, true)
  local nl2 = nl and string.find(entry, '\\n', nl + 1, true)
  if not nl2 or nl2 == nl + 1 then return nil end
  return string.sub(entry, nl + 1, nl2 - 1)
end
-- Crawl-wide politeness (politeness_scope=crawl): a request held by any process counts against its host's
-- per_domain. release_busy forgets one when it is finished or goes back; the hash only exists in such a crawl.
local function release_busy(host)
  if host and redis.call('HINCRBY', P .. ':busy', host, -1) <= 0 then redis.call('HDEL', P .. ':busy', host) end
end
local function requeue(entry)
  local nl = string.find(entry, '\\n', 1, true)
  local nl2 = nl and string.find(entry, '\\n', nl + 1, true)
  if not nl2 or nl2 == nl + 1 then return 0 end
  local prio = string.sub(entry, 1, nl - 1)
  if tonumber(prio) == nil then return 0 end
  local host = string.sub(entry, nl + 1, nl2 - 1)
  if redis.call('HEXISTS', P .. ':busy', host) == 1 then release_busy(host) end
  local ok, length = pcall(redis.call, 'LPUSH', P .. ':q:' .. prio .. ':' .. host, string.sub(entry, nl2 + 1))
  if not ok then return 0 end
  if length == 1 then redis.call('LPUSH', P .. ':hosts:' .. prio, host) end
  redis.call('ZADD', P .. ':prios', tonumber(prio), prio)
  return 1
end
-- Sets aside a key that should be a list and is not (written by hand, say), so it cannot stop anyone again.
local function set_aside(key)
  redis.call('RENAME', key, P .. ':bad:' .. string.sub(key, string.len(P) + 2))
end
-- Records a heartbeat for pid, then takes up to max requests and holds them for it: the highest priority first;
-- within a priority, hosts in turn (a fair share of what is left from each, the host then going to the end of the
-- line), passing over the hosts in hard (which this process has enough of waiting); within a host, oldest first.
-- The hosts in soft (of which it already holds a full share) are passed over too, and then, if the lease is not full,
-- taken from in a second walk: a crawl of one site is not slowed, a crawl of many fills its slots with other sites. Entries
-- longer than max_bytes are dropped unread. Appends id, encoded, id, encoded, ... to out, and last the number of
-- keys found not to be lists and the number of entries dropped for their size. With polite ({ per_domain, delay }:
-- politeness_scope=crawl), a host is also passed over while the whole crawl holds per_domain of its requests or a
-- delay has not passed since its last start (taking k at once puts that start k - 1 delays from now).
local function take(pid, max, max_bytes, hard, soft, out, polite)
  local skip = {}
  for host in pairs(hard) do skip[host] = true end
  for host in pairs(soft) do skip[host] = true end
  local now = now_ms()
  redis.call('ZADD', P .. ':procs', now, pid)
  local bad, big, taken = 0, 0, 0
  local fields, entries = {}, {}
  -- One walk over the priorities, passing over the hosts in pass.
  local function walk(pass)
    local prios = redis.call('ZREVRANGE', P .. ':prios', 0, -1)
    for _, prio in ipairs(prios) do
      if taken >= max then break end
      local ring = P .. ':hosts:' .. prio
      local ok, hosts = pcall(redis.call, 'LLEN', ring)
      if tonumber(prio) == nil then
        -- A priority that is not a number (written by hand): its requests could not be put back if given back.
        if redis.call('EXISTS', ring) == 1 then
          set_aside(ring)
          bad = bad + 1
        end
        redis.call('ZREM', P .. ':prios', prio)
        hosts = 0
      elseif not ok then
        set_aside(ring)
        redis.call('ZREM', P .. ':prios', prio)
        bad = bad + 1
        hosts = 0
      elseif hosts == 0 then
        redis.call('ZREM', P .. ':prios', prio)
      end
      -- Passes over the ring until it is empty, max is reached, or a whole pass took nothing (every host skipped).
      local visits_left, took_in_pass = hosts, 0
      while taken < max and hosts > 0 do
        if visits_left == 0 then
          if took_in_pass == 0 then break end
          visits_left, took_in_pass = hosts, 0
        end
        visits_left = visits_left - 1
        local host = redis.call('LMOVE', ring, ring, 'LEFT', 'RIGHT')
        local share = math.min(math.ceil((max - taken) / hosts), 1000)
        local delay = 0
        if polite and not pass[host] then
          local busy = tonumber(redis.call('HGET', P .. ':busy', host) or '0')
          delay = math.max(polite.delay, tonumber(redis.call('HGET', P .. ':delay', host) or '0'))
          -- The delay as it is now, from the last start: a Crawl-delay learned since applies to the very next one.
          local due = tonumber(redis.call('HGET', P .. ':last', host) or '-1e18') + delay
          if busy >= polite.per_domain or due > now then share = 0 else share = math.min(share, polite.per_domain - busy) end
        end
        if not pass[host] and share > 0 then
          local list = P .. ':q:' .. prio .. ':' .. host
          local items = redis.pcall('LPOP', list, share)
          if type(items) == 'table' and items.err then
            set_aside(list)
            items = false
            bad = bad + 1
          end
          if not items or #items < share or redis.call('EXISTS', list) == 0 then
            -- The list is gone (emptied, or set aside): the host leaves the ring, from the end it was just moved to.
            redis.call('LREM', ring, -1, host)
            hosts = hosts - 1
            if hosts == 0 then redis.call('ZREM', P .. ':prios', prio) end
          end
          local took = 0
          for _, item in ipairs(items or {}) do
            if string.len(item) > max_bytes then
              big = big + 1
            else
              fields[#fields + 1] = prio .. '\\n' .. host .. '\\n' .. item
              entries[#entries + 1] = item
              took = took + 1
            end
          end
          taken = taken + took
          took_in_pass = took_in_pass + took
          if polite and took > 0 then
            redis.call('HINCRBY', P .. ':busy', host, took)
            -- Several taken at once start a delay apart in the process that took them (its own slots space them).
            if delay > 0 then redis.call('HSET', P .. ':last', host, now + delay * (took - 1)) end
          end
        end
      end
    end
  end
  walk(skip)
  -- Hosts this process already holds a full share of come last: taken from only when nothing else could be.
  if taken < max and next(soft) ~= nil then
    walk(hard)
  end
  if taken > 0 then
    -- Ids last - n + 1 .. last, from one HINCRBY; the entries held in one HSET (in pieces of 1,000 for unpack()).
    local last = redis.call('HINCRBY', P .. ':meta', 'seq', taken)
    local held = {}
    for k = 1, taken do
      local id = tostring(last - taken + k)
      held[#held + 1] = id
      held[#held + 1] = fields[k]
      if #held >= 2000 then
        redis.call('HSET', P .. ':held:' .. pid, unpack(held))
        held = {}
      end
      out[#out + 1] = id
      out[#out + 1] = entries[k]
    end
    if #held > 0 then redis.call('HSET', P .. ':held:' .. pid, unpack(held)) end
  end
  out[#out + 1] = bad
  out[#out + 1] = big
end
`;

/** ARGV: P, payload (see add). Returns how many were queued. */
export const PUSH = COMMON + `
local b = batch()
local added = add(b, 2)
flush(b)
return added
`;

/**
 * ARGV: P, pid, max, max_bytes, per_domain and min_delay_ms (0 and 0 unless politeness_scope=crawl), n, n hosts to
 * pass over, s, s hosts to take from last, m, m pairs of host and delay in ms (for P:delay), then pairs of lease id
 * and payload (see add). First,
 * for each page, in one step: releases its lease and queues what it yielded. Several pages go in one call when
 * they finish while an earlier call is on its way. A lease no longer held (taken back after this process was
 * thought dead) queues nothing: whoever fetches the page again queues its links. Then, when max > 0, leases (see
 * take): the same call that queues a page's links can hand out the next page. Returns the result of each page (how
 * many were queued, or -1 for a lease not held), followed by what take returns.
 */
export const FINISH = COMMON + `
local pid, max, max_bytes = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local per_domain, min_delay = tonumber(ARGV[5]), tonumber(ARGV[6])
local polite = nil
if per_domain > 0 then polite = { per_domain = per_domain, delay = min_delay } end
local nskip = tonumber(ARGV[7])
local skip = {}
for i = 8, 7 + nskip do skip[ARGV[i]] = true end
local at = 8 + nskip
-- Hosts this process holds a full share of (per_domain): taken from last.
local nsoft = tonumber(ARGV[at])
local soft = {}
for i = at + 1, at + nsoft do soft[ARGV[i]] = true end
at = at + 1 + nsoft
-- With crawl-wide politeness, the delays this process found for hosts (robots.txt Crawl-delay): host, ms, ...
local ndelays = tonumber(ARGV[at])
for i = at + 1, at + 2 * ndelays, 2 do redis.call('HSET', P .. ':delay', ARGV[i], ARGV[i + 1]) end
local first = at + 1 + 2 * ndelays
local out = {}
if #ARGV > first then
  local b = batch()
  local held = P .. ':held:' .. pid
  for i = first, #ARGV - 1, 2 do
    local entry = polite and redis.call('HGET', held, ARGV[i])
    if redis.call('HDEL', held, ARGV[i]) == 0 then
      out[#out + 1] = -1
    else
      if entry then release_busy(held_host(entry)) end
      out[#out + 1] = add(b, i + 1)
    end
  end
  flush(b)
end
if max > 0 then take(pid, max, max_bytes, skip, soft, out, polite) end
return out
`;

/**
 * ARGV: P, pid, id, ... Puts held requests back at the front of the queue. Returns how many went back, and how many
 * held entries were not in the shape this store writes (dropped, to be counted as bad).
 */
export const GIVE_BACK = COMMON + `
local back, bad = 0, 0
-- Last first: each goes to the front of its host's list, so they end up in the order they were taken.
for i = #ARGV, 3, -1 do
  local entry = redis.call('HGET', P .. ':held:' .. ARGV[2], ARGV[i])
  if entry then
    local ok = requeue(entry)
    back, bad = back + ok, bad + 1 - ok
    redis.call('HDEL', P .. ':held:' .. ARGV[2], ARGV[i])
  end
end
if back > 0 then redis.call('HDEL', P .. ':meta', 'idle_since') end
return {back, bad}
`;

/**
 * ARGV: P, pid, lease_ms, joining. Records a heartbeat, then takes back what processes silent for a lease held:
 * their requests go back to the queue, bypassing the filter. Returns how many requests were taken back, and how
 * many held entries were not in this store's shape (dropped). A process joining ('1', its first beat) restarts the
 * crawl's idle clock: the idle wait is for processes that start late and for their start requests, so one that
 * joins a crawl idle for an hour still waits queue_idle before it ends.
 */
export const HEARTBEAT = COMMON + `
local pid, lease = ARGV[2], tonumber(ARGV[3])
local now = now_ms()
redis.call('ZADD', P .. ':procs', now, pid)
if ARGV[4] == '1' then redis.call('HDEL', P .. ':meta', 'idle_since') end
local dead = redis.call('ZRANGEBYSCORE', P .. ':procs', '-inf', now - lease)
local back, bad = 0, 0
for _, other in ipairs(dead) do
  local held = redis.call('HVALS', P .. ':held:' .. other)
  for _, entry in ipairs(held) do
    local ok = requeue(entry)
    back, bad = back + ok, bad + 1 - ok
  end
  redis.call('DEL', P .. ':held:' .. other)
  redis.call('ZREM', P .. ':procs', other)
end
if back > 0 then redis.call('HDEL', P .. ':meta', 'idle_since') end
return {back, bad}
`;

/** ARGV: P, pid. Lists the lease ids held for pid (to put back any this process does not know of). */
export const HELD_IDS = COMMON + `
return redis.call('HKEYS', P .. ':held:' .. ARGV[2])
`;

/**
 * ARGV: P. How long the crawl has been idle (nothing waiting, nothing held by anyone) in ms, starting the clock
 * when it first finds it so; -1 while there is work.
 */
export const IDLE = COMMON + `
local now = now_ms()
local busy = false
for _, prio in ipairs(redis.call('ZRANGE', P .. ':prios', 0, -1)) do
  local ok, length = pcall(redis.call, 'LLEN', P .. ':hosts:' .. prio)
  if ok and length > 0 then busy = true break end
  redis.call('ZREM', P .. ':prios', prio)
end
if not busy then
  for _, other in ipairs(redis.call('ZRANGE', P .. ':procs', 0, -1)) do
    if redis.call('HLEN', P .. ':held:' .. other) > 0 then busy = true break end
  end
end
if busy then
  redis.call('HDEL', P .. ':meta', 'idle_since')
  return -1
end
local since = redis.call('HGET', P .. ':meta', 'idle_since')
if not since then
  redis.call('HSET', P .. ':meta', 'idle_since', now)
  return 0
end
return now - tonumber(since)
`;

/** ARGV: P, pid. A process leaving: what it still holds goes back, and it is no longer counted. */
export const LEAVE = COMMON + `
local back = 0
for _, entry in ipairs(redis.call('HVALS', P .. ':held:' .. ARGV[2])) do back = back + requeue(entry) end
redis.call('DEL', P .. ':held:' .. ARGV[2])
redis.call('ZREM', P .. ':procs', ARGV[2])
if back > 0 then redis.call('HDEL', P .. ':meta', 'idle_since') end
return back
`;

/** ARGV: P. {waiting, held, processes, seen, queued}. Walks every host's list: for status, not for a crawl's loop. */
export const STATUS = COMMON + `
local waiting, held = 0, 0
for _, prio in ipairs(redis.call('ZRANGE', P .. ':prios', 0, -1)) do
  local ok, hosts = pcall(redis.call, 'LRANGE', P .. ':hosts:' .. prio, 0, -1)
  if ok then
    for _, host in ipairs(hosts) do
      local fine, length = pcall(redis.call, 'LLEN', P .. ':q:' .. prio .. ':' .. host)
      if fine then waiting = waiting + length end
    end
  end
end
local procs = redis.call('ZRANGE', P .. ':procs', 0, -1)
for _, other in ipairs(procs) do held = held + redis.call('HLEN', P .. ':held:' .. other) end
local meta = redis.call('HMGET', P .. ':meta', 'seen', 'queued')
return {waiting, held, #procs, tonumber(meta[1] or '0'), tonumber(meta[2] or '0')}
`;

/** Every script by the name the client defines it under. */
export const SCRIPTS = {
  nwPush: PUSH,
  nwFinish: FINISH,
  nwGiveBack: GIVE_BACK,
  nwHeartbeat: HEARTBEAT,
  nwHeldIds: HELD_IDS,
  nwIdle: IDLE,
  nwLeave: LEAVE,
  nwStatus: STATUS,
} as const;

export type ScriptName = keyof typeof SCRIPTS;
