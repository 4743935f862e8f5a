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
 *   P:marks          hash: process id -> how many of its FINISH and PUSH calls Redis has kept (see stale)
 *   P:lease          hash: process id -> its queue_lease in ms, so that status counts only live processes
 *   P:stats          hash: process id -> what its last heartbeat reported (JSON: host, pid, pages, items, errors,
 *                    pages_per_second), for the crawl-wide stats of `netweir queue status`
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
-- Sets aside a key that is not of the type the queue keeps there (written by hand, say), so it cannot stop anyone
-- again. Counted in ASIDE, which each script reports among its bad entries.
local ASIDE = 0
local function set_aside(key)
  redis.call('RENAME', key, P .. ':bad:' .. string.sub(key, string.len(P) + 2))
  ASIDE = ASIDE + 1
end
-- Runs a command that writes to key; when key is of another type (written by hand), sets it aside and runs it again
-- on a fresh key. A command that fails changes nothing, so this costs nothing when the key is fine.
-- Any other error (a login not allowed the key, say) is raised as it is: the key is not junk.
local function wrong_type(answer)
  return type(answer) == 'table' and answer.err ~= nil and string.find(answer.err, 'WRONGTYPE', 1, true) ~= nil
end
-- Runs a command that reads key; a key of another type is set aside and read as absent (false).
local function read_from(command, key, ...)
  local answer = redis.pcall(command, key, ...)
  if wrong_type(answer) then
    set_aside(key)
    return false
  end
  if type(answer) == 'table' and answer.err then return redis.call(command, key, ...) end
  return answer
end
local function write_to(command, key, ...)
  local answer = redis.pcall(command, key, ...)
  if wrong_type(answer) then set_aside(key) end
  if type(answer) == 'table' and answer.err then answer = redis.call(command, key, ...) end
  return answer
end
-- Whether key is a hash or absent: a held key someone wrote as another type is set aside rather than stop the script.
local function is_hash(key)
  local kind = redis.call('TYPE', key)['ok']
  return kind == 'hash' or kind == 'none'
end
-- What process pid holds (its held entries), {} when its key is not a hash (set aside: junk written by hand).
local function held_entries(pid)
  return read_from('HVALS', P .. ':held:' .. pid) or {}
end
-- How many requests process pid holds; 0 for a held key that is not a hash (left for a heartbeat to set aside).
local function held_count(pid)
  local ok, count = pcall(redis.call, 'HLEN', P .. ':held:' .. pid)
  if ok then return count end
  return 0
end
-- Removes a process that left or was taken for dead: what it holds (already put back), its heartbeat, its lease, its
-- stats and its mark, so that a process taken for dead finds at its next call that what it remembers may be gone
-- (see stale).
local function forget_process(pid)
  redis.call('DEL', P .. ':held:' .. pid)
  redis.call('ZREM', P .. ':procs', pid)
  redis.call('HDEL', P .. ':lease', pid)
  redis.call('HDEL', P .. ':marks', pid)
  redis.pcall('HDEL', P .. ':stats', pid)
end
-- The lease of a process that never said its own (one of an older version): queue_lease's default.
local DEFAULT_LEASE_MS = 60000
-- A priority as the queue can keep it: a number, and not NaN (which ZADD refuses; Lua's tonumber reads 'nan').
local function prio_number(text)
  local n = tonumber(text)
  if n == nil or n ~= n then return nil end
  return n
end
-- Whether Redis has lost changes process pid made, checked before a call changes anything. P:marks counts the calls
-- of each process that changed Redis (every FINISH and PUSH of a crawl's process bumps it); the process sends the
-- count from the last answer it got (ack). Fewer here means Redis lost some of them: it was restarted from older data
-- or failed over to a replica that was behind, the crawl's keys were cleared, or the process was taken for dead
-- (its mark goes with its requests). Then what the process remembers as queued may not be, and the call answers
-- NWSTALE with what is kept and why, having changed nothing. A pid of '' (netweir queue push) is never checked.
local function stale(pid, ack, bump)
  if pid == '' then return nil end
  local kept
  if bump then
    -- Bumped first, in one command, and put back as it was when the call is refused.
    local now = write_to('HINCRBY', P .. ':marks', pid, 1)
    kept = now - 1
    if kept >= ack then return nil, now end
    if kept == 0 then redis.call('HDEL', P .. ':marks', pid) else redis.call('HINCRBY', P .. ':marks', pid, -1) end
  else
    kept = tonumber(read_from('HGET', P .. ':marks', pid) or '0') or 0
    if kept >= ack then return nil end
  end
  local why = 'behind'
  if redis.call('EXISTS', P .. ':cleared') == 1 then
    why = 'cleared'
  elseif redis.call('EXISTS', P .. ':meta') == 0 then
    why = 'lost'
  elseif not redis.call('ZSCORE', P .. ':procs', pid) then
    why = 'dead'
  end
  return redis.error_reply('NWSTALE ' .. kept .. ' ' .. why)
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
-- A bucket that is not a hash (written by hand) is set aside: it held no fingerprint, and an
-- error here would end the script after it had released pages (the links of which would then never be queued).
local function seen_or_add(b, fphex, fp, level)
  for l = 0, level - 1 do
    local key = seen_key(l, fphex)
    local found = redis.pcall('HEXISTS', key, seen_field(l, fp))
    if found == 1 then return true end
    if wrong_type(found) then
      set_aside(key)
    elseif type(found) == 'table' then
      redis.call('HEXISTS', key, seen_field(l, fp))
    end
  end
  return write_to('HSET', seen_key(level, fphex), seen_field(level, fp), '') == 0
end
-- Adding requests goes in three steps, so that a call adding several payloads (a FINISH of several pages) reads
-- and writes the shared counters once: batch() starts, add(b, i) adds the payload ARGV[i], flush(b) writes.
--
-- A payload holds one request a line, "FINGERPRINT_HEX PRIORITY DONT_FILTER HOST ENCODED". One string for a whole
-- batch rather than five arguments a request keeps the client's memory flat while it waits. A request the filter
-- has seen is left out unless DONT_FILTER is '1'. Per request it costs one HSET, after a HEXISTS for each older
-- filter level; each host's list gets one RPUSH per priority, and the counters are written once for the batch.
local function batch()
  local seen = read_from('HGET', P .. ':meta', 'seen')
  return { seen = tonumber(seen or '0') or 0, fresh = 0, added = 0, lists = {}, order = {} }
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
      if prio_number(prio) ~= nil then
        local fphex = string.lower(string.sub(payload, pos, s1 - 1))
        local queue = true
        if seen_or_add(b, fphex, unhex(fphex), level_for(b.seen + b.fresh)) then
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
      length = write_to('RPUSH', P .. ':q:' .. name, unpack(list, first, math.min(first + 999, #list)))
    end
    if length == #list then write_to('RPUSH', P .. ':hosts:' .. list.prio, list.host) end
    prios[list.prio] = true
  end
  for prio in pairs(prios) do redis.call('ZADD', P .. ':prios', prio_number(prio), prio) end
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
-- The per_domain and delay (ms) of a host: its hosts-setting entry's (the exact name, else the "*." pattern of its
-- nearest parent domain, as src/settings/hosts.ts matches), else the crawl's. Each host is matched once per call.
local function host_limits(by_pattern, per_domain, delay)
  local known = {}
  return function(host)
    local found = known[host]
    if not found then
      found = by_pattern[host]
      local dot = string.find(host, '.', 1, true)
      while not found and dot do
        found = by_pattern['*' .. string.sub(host, dot)]
        dot = string.find(host, '.', dot + 1, true)
      end
      found = found or { per_domain, delay }
      known[host] = found
    end
    return found[1], found[2]
  end
end
local function requeue(entry)
  local nl = string.find(entry, '\\n', 1, true)
  local nl2 = nl and string.find(entry, '\\n', nl + 1, true)
  if not nl2 or nl2 == nl + 1 then return 0 end
  local prio = string.sub(entry, 1, nl - 1)
  if prio_number(prio) == nil then return 0 end
  local host = string.sub(entry, nl + 1, nl2 - 1)
  if redis.call('HEXISTS', P .. ':busy', host) == 1 then release_busy(host) end
  local length = write_to('LPUSH', P .. ':q:' .. prio .. ':' .. host, string.sub(entry, nl2 + 1))
  if length == 1 then write_to('LPUSH', P .. ':hosts:' .. prio, host) end
  redis.call('ZADD', P .. ':prios', prio_number(prio), prio)
  return 1
end
-- Records a heartbeat for pid, then takes up to max requests and holds them for it: the highest priority first;
-- within a priority, hosts in turn (a fair share of what is left from each, the host then going to the end of the
-- line), passing over the hosts in hard (which this process has enough of waiting); within a host, oldest first.
-- The hosts in soft (of which it already holds a full share) are passed over too, and then, if the lease is not full,
-- taken from in a second walk: a crawl of one site is not slowed, a crawl of many fills its slots with other sites. Entries
-- longer than max_bytes are dropped unread. Appends id, encoded, id, encoded, ... to out; returns the number of entries
-- dropped for their size (keys found not to be lists are set aside, and counted in ASIDE). With polite (politeness_scope=crawl:
-- polite.limits(host) gives the host's per_domain and delay), a host is also passed over while the whole crawl holds
-- per_domain of its requests or a delay has not passed since its last start (taking k at once puts that start k - 1
-- delays from now).
local function take(pid, max, max_bytes, hard, soft, out, polite)
  local skip = {}
  for host in pairs(hard) do skip[host] = true end
  for host in pairs(soft) do skip[host] = true end
  local now = now_ms()
  write_to('ZADD', P .. ':procs', now, pid)
  local big, taken = 0, 0
  local fields, entries = {}, {}
  -- One walk over the priorities, passing over the hosts in pass.
  local function walk(pass)
    local prios = redis.call('ZREVRANGE', P .. ':prios', 0, -1)
    for _, prio in ipairs(prios) do
      if taken >= max then break end
      local ring = P .. ':hosts:' .. prio
      local ok, hosts = pcall(redis.call, 'LLEN', ring)
      if prio_number(prio) == nil then
        -- A priority that is not a number (written by hand): its requests could not be put back if given back.
        if redis.call('EXISTS', ring) == 1 then set_aside(ring) end
        redis.call('ZREM', P .. ':prios', prio)
        hosts = 0
      elseif not ok then
        set_aside(ring)
        redis.call('ZREM', P .. ':prios', prio)
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
          local per_domain, min_delay = polite.limits(host)
          delay = math.max(min_delay, tonumber(redis.call('HGET', P .. ':delay', host) or '0'))
          -- The delay as it is now, from the last start: a Crawl-delay learned since applies to the very next one.
          local due = tonumber(redis.call('HGET', P .. ':last', host) or '-1e18') + delay
          if busy >= per_domain or due > now then share = 0 else share = math.min(share, per_domain - busy) end
        end
        if not pass[host] and share > 0 then
          local list = P .. ':q:' .. prio .. ':' .. host
          local items = redis.pcall('LPOP', list, share)
          if type(items) == 'table' and items.err then
            set_aside(list)
            items = false
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
    local last = write_to('HINCRBY', P .. ':meta', 'seq', taken)
    local held = {}
    for k = 1, taken do
      local id = tostring(last - taken + k)
      held[#held + 1] = id
      held[#held + 1] = fields[k]
      if #held >= 2000 then
        write_to('HSET', P .. ':held:' .. pid, unpack(held))
        held = {}
      end
      out[#out + 1] = id
      out[#out + 1] = entries[k]
    end
    if #held > 0 then write_to('HSET', P .. ':held:' .. pid, unpack(held)) end
  end
  return big
end
`;

/**
 * ARGV: P, payload (see add), and for a crawl's own process its pid and ack (see stale). Returns how many were
 * queued; with a pid, {queued, the process's new mark, keys set aside}.
 */
export const PUSH = COMMON + `
local pid, ack = ARGV[3] or '', tonumber(ARGV[4] or '0')
local refused, mark = stale(pid, ack, true)
if refused then return refused end
local b = batch()
local added = add(b, 2)
flush(b)
if pid == '' then return added end
return {added, mark, ASIDE}
`;

/**
 * ARGV: P, pid, ack (see stale), max, max_bytes, per_domain and min_delay_ms (0 and 0 unless
 * politeness_scope=crawl), n, n hosts to pass over, s, s hosts to take from last, m, m pairs of host and delay in ms
 * (for P:delay), k, k triples of a `hosts` pattern, its per_domain and its min_delay in ms (politeness_scope=crawl),
 * then pairs of lease id and payload (see add). First, for each page, in one step: releases its lease
 * and queues what it yielded. Several pages go in one call when they finish while an earlier call is on its way. A
 * lease no longer held queues nothing: whoever fetches the page again queues its links. Then, when max > 0, leases
 * (see take): the same call that queues a page's links can hand out the next page. Returns the result of each page
 * (how many were queued, or -1 for a lease not held), the ids and entries taken, then the keys set aside, the
 * entries dropped for their size and the process's new mark. Nothing it does can fail on data someone else wrote:
 * such keys are set aside, so the call never stops halfway, with pages released and their links not queued.
 */
export const FINISH = COMMON + `
local pid, ack = ARGV[2], tonumber(ARGV[3])
local refused, mark = stale(pid, ack, true)
if refused then return refused end
local max, max_bytes = tonumber(ARGV[4]), tonumber(ARGV[5])
local per_domain, min_delay = tonumber(ARGV[6]), tonumber(ARGV[7])
local nskip = tonumber(ARGV[8])
local skip = {}
for i = 9, 8 + nskip do skip[ARGV[i]] = true end
local at = 9 + nskip
-- Hosts this process holds a full share of (per_domain): taken from last.
local nsoft = tonumber(ARGV[at])
local soft = {}
for i = at + 1, at + nsoft do soft[ARGV[i]] = true end
at = at + 1 + nsoft
-- With crawl-wide politeness, the delays this process found for hosts (robots.txt Crawl-delay): host, ms, ...
local ndelays = tonumber(ARGV[at])
for i = at + 1, at + 2 * ndelays, 2 do write_to('HSET', P .. ':delay', ARGV[i], ARGV[i + 1]) end
at = at + 1 + 2 * ndelays
-- With crawl-wide politeness, the hosts setting's own per_domain and min_delay: pattern, per_domain, ms, ...
local nlimits = tonumber(ARGV[at])
local by_pattern = {}
for i = at + 1, at + 3 * nlimits, 3 do by_pattern[ARGV[i]] = { tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]) } end
local first = at + 1 + 3 * nlimits
local polite = nil
if per_domain > 0 then polite = { limits = host_limits(by_pattern, per_domain, min_delay) } end
local out = {}
if #ARGV > first then
  local b = batch()
  local held = P .. ':held:' .. pid
  for i = first, #ARGV - 1, 2 do
    local entry = polite and redis.call('HGET', held, ARGV[i])
    if write_to('HDEL', held, ARGV[i]) == 0 then
      out[#out + 1] = -1
    else
      if entry then release_busy(held_host(entry)) end
      out[#out + 1] = add(b, i + 1)
    end
  end
  flush(b)
end
local big = 0
if max > 0 then big = take(pid, max, max_bytes, skip, soft, out, polite) end
out[#out + 1] = ASIDE
out[#out + 1] = big
out[#out + 1] = mark
return out
`;

/**
 * ARGV: P, pid, id, ... Puts held requests back at the front of the queue. Returns how many went back, and how many
 * held entries (or keys) were not in the shape this store writes (dropped or set aside, to be counted as bad).
 */
export const GIVE_BACK = COMMON + `
local back, bad = 0, 0
local held = P .. ':held:' .. ARGV[2]
if not is_hash(held) then set_aside(held) end
-- Last first: each goes to the front of its host's list, so they end up in the order they were taken.
for i = #ARGV, 3, -1 do
  local entry = redis.call('HGET', held, ARGV[i])
  if entry then
    local ok = requeue(entry)
    back, bad = back + ok, bad + 1 - ok
    redis.call('HDEL', held, ARGV[i])
  end
end
if back > 0 then redis.call('HDEL', P .. ':meta', 'idle_since') end
return {back, bad + ASIDE}
`;

/**
 * ARGV: P, pid, lease_ms, joining, ack (see stale), report. Records a heartbeat and the process's report (its host,
 * pid and running totals, for the crawl-wide stats: one HSET, absent from a process of an earlier version), then
 * takes back what processes silent for their lease held: their requests go back to the queue, bypassing the filter.
 * Returns how many requests were taken
 * back, and how many held entries (or keys) were not in this store's shape (dropped or set aside). A process joining
 * ('1', its first beat) restarts the crawl's idle clock: the idle wait is for processes that start late and for
 * their start requests, so one that joins a crawl idle for an hour still waits queue_idle before it ends.
 */
export const HEARTBEAT = COMMON + `
local pid, lease = ARGV[2], tonumber(ARGV[3])
local refused = stale(pid, tonumber(ARGV[5] or '0'))
if refused then return refused end
local now = now_ms()
write_to('ZADD', P .. ':procs', now, pid)
write_to('HSET', P .. ':lease', pid, lease)
if ARGV[6] then write_to('HSET', P .. ':stats', pid, ARGV[6]) end
if ARGV[4] == '1' then redis.call('HDEL', P .. ':meta', 'idle_since') end
local dead = redis.call('ZRANGEBYSCORE', P .. ':procs', '-inf', now - lease)
local back, bad = 0, 0
for _, other in ipairs(dead) do
  for _, entry in ipairs(held_entries(other)) do
    local ok = requeue(entry)
    back, bad = back + ok, bad + 1 - ok
  end
  forget_process(other)
end
if back > 0 then redis.call('HDEL', P .. ':meta', 'idle_since') end
return {back, bad + ASIDE}
`;

/** ARGV: P, pid. Lists the lease ids held for pid (to put back any this process does not know of). */
export const HELD_IDS = COMMON + `
local held = P .. ':held:' .. ARGV[2]
if not is_hash(held) then return {} end
return redis.call('HKEYS', held)
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
    if held_count(other) > 0 then busy = true break end
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
for _, entry in ipairs(held_entries(ARGV[2])) do back = back + requeue(entry) end
forget_process(ARGV[2])
if back > 0 then redis.call('HDEL', P .. ':meta', 'idle_since') end
return back
`;

/**
 * ARGV: P, detail. {waiting, held, processes, seen, queued}. Walks every host's list: for status, not for a crawl's
 * loop. Processes are those heard from within their own lease (a process that died holding nothing is never
 * reclaimed, and would otherwise be counted until another process's heartbeat came); held counts what dead ones
 * still hold. With detail '1', then Redis's time (ms) and, for each live process, its id, its last heartbeat (ms) and
 * its report from P:stats ('' when it has none).
 */
export const STATUS = COMMON + `
local waiting, held, live = 0, 0, 0
for _, prio in ipairs(redis.call('ZRANGE', P .. ':prios', 0, -1)) do
  local ok, hosts = pcall(redis.call, 'LRANGE', P .. ':hosts:' .. prio, 0, -1)
  if ok then
    for _, host in ipairs(hosts) do
      local fine, length = pcall(redis.call, 'LLEN', P .. ':q:' .. prio .. ':' .. host)
      if fine then waiting = waiting + length end
    end
  end
end
local now = now_ms()
local procs = redis.call('ZRANGE', P .. ':procs', 0, -1, 'WITHSCORES')
local detail = {}
for i = 1, #procs, 2 do
  local other = procs[i]
  held = held + held_count(other)
  local ok, lease = pcall(redis.call, 'HGET', P .. ':lease', other)
  lease = ok and tonumber(lease or '') or DEFAULT_LEASE_MS
  if tonumber(procs[i + 1]) >= now - lease then
    live = live + 1
    if ARGV[2] == '1' then
      local fine, report = pcall(redis.call, 'HGET', P .. ':stats', other)
      detail[#detail + 1] = other
      detail[#detail + 1] = procs[i + 1]
      detail[#detail + 1] = (fine and report) or ''
    end
  end
end
local ok, meta = pcall(redis.call, 'HMGET', P .. ':meta', 'seen', 'queued')
if not ok then meta = {} end
local out = {waiting, held, live, tonumber(meta[1] or '0'), tonumber(meta[2] or '0')}
if ARGV[2] == '1' then
  out[#out + 1] = now
  for _, value in ipairs(detail) do out[#out + 1] = value end
end
return out
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
