-- SQL for a locktrace timeline in Perfetto (docs/perfetto.md).
-- Paste one query at a time into the UI's query page (ui.perfetto.dev,
-- "Query (SQL)"), or run them all: trace_processor_shell -q THIS_FILE TRACE.
-- They read both outputs: NAME.perfetto-trace and `--format json`.
-- tests/test_tp_live.c runs this file against real recordings.

-- 1. Who held the lock while a thread waited for it.
-- One row per futex wait: the lock, the waiting thread, and its holder:
-- the thread whose waking call ended the wait (it held the lock until it
-- handed it to this waiter), or, for a wait nothing ended, the thread that a
-- lock model read as the holder from the process's memory (its "lock held"
-- track, for runtime locks such as CPython's GIL).  Set lock (part of its
-- name or its address) and tid to narrow it down; NULL shows every wait.
with params as (select null as lock, null as tid),
waits as (
  select s.id, s.ts, s.dur, t.tid, t.name as thread, s.name as call,
    case when extract_arg(s.arg_set_id, 'debug.addr') is not null
      then printf('0x%x', extract_arg(s.arg_set_id, 'debug.addr'))
      else extract_arg(s.arg_set_id, 'args.addr') end as addr
  from slice s join thread_track tt on s.track_id = tt.id join thread t using (utid)
  where s.depth = 0 and (s.name glob 'FUTEX_WAIT*' or s.name glob 'FUTEX_LOCK_PI*'
    or s.name glob 'futex_wait*')
),
locks as (
  select replace(name, ' waiters', '') as lock,
    rtrim(substr(replace(name, ' waiters', ''), instr(name, 'futex 0x') + 6), ')') as addr
  from counter_track where name glob '*futex 0x*'
),
woken as (
  select k.parent_id as id, min(t.tid) as tid, min(h.name) as call
  from flow f join slice k on k.id = f.slice_in and k.name = 'woken'
  join slice h on h.id = f.slice_out join thread_track hh on h.track_id = hh.id
  join thread t on t.utid = hh.utid
  group by k.parent_id
),
held as (
  select h.ts, h.dur, h.name as call, t.tid
  from slice h join thread_track hh on h.track_id = hh.id and hh.name = 'lock held'
  join thread t on t.utid = hh.utid
),
answer as (
  select coalesce(l.lock, 'futex ' || w.addr) as lock, w.tid as waiter, w.thread, w.call,
    w.id as wait_id, w.ts, w.dur, k.tid as released_by, k.call as releasing_call,
    (select min(h.tid) from held h where h.ts < w.ts + w.dur and h.ts + h.dur > w.ts) as held_by,
    (select min(h.call) from held h where h.ts < w.ts + w.dur and h.ts + h.dur > w.ts) as held_call
  from waits w left join locks l on l.addr = w.addr left join woken k on k.id = w.id
)
select a.lock, a.waiter, a.thread, a.call, a.wait_id, a.ts, a.dur,
  coalesce(a.released_by, a.held_by) as holder,
  case when a.released_by is not null then 'released it: ' || a.releasing_call
       when a.held_by is not null then a.held_call
       else 'not known: nothing in the trace ended this wait' end as how_known
from answer a, params p
where (p.lock is null or a.lock like '%' || p.lock || '%') and (p.tid is null or a.waiter = p.tid)
order by a.lock, a.ts;

-- 2. The longest waits on each lock: the three longest futex waits per futex
-- word, the locks with the longest wait first; unfinished = still waiting
-- when the trace ended (the wait then runs to the end of the trace).
with waits as (
  select s.id, s.ts, s.dur, t.tid, t.name as thread, s.name as call,
    case when extract_arg(s.arg_set_id, 'debug.addr') is not null
      then printf('0x%x', extract_arg(s.arg_set_id, 'debug.addr'))
      else extract_arg(s.arg_set_id, 'args.addr') end as addr,
    coalesce(extract_arg(s.arg_set_id, 'debug.unfinished'),
      extract_arg(s.arg_set_id, 'args.unfinished'), 0) as unfinished
  from slice s join thread_track tt on s.track_id = tt.id join thread t using (utid)
  where s.depth = 0 and (s.name glob 'FUTEX_WAIT*' or s.name glob 'FUTEX_LOCK_PI*'
    or s.name glob 'futex_wait*')
),
locks as (
  select replace(name, ' waiters', '') as lock,
    rtrim(substr(replace(name, ' waiters', ''), instr(name, 'futex 0x') + 6), ')') as addr
  from counter_track where name glob '*futex 0x*'
),
ranked as (
  select w.*, coalesce(l.lock, 'futex ' || w.addr) as lock,
    row_number() over (partition by w.addr order by w.dur desc, w.id) as rank,
    max(w.dur) over (partition by w.addr) as lock_max
  from waits w left join locks l on l.addr = w.addr
)
select lock, rank, tid, thread, call, id as wait_id, ts, dur, unfinished
from ranked where rank <= 3
order by lock_max desc, lock, rank;

-- 3. The wake chain that ended a wait: the wait; the call that woke it; the
-- wait that call's thread had come out of just before; the call that woke
-- that one; and so on back in time, until a wait that no traced call ended
-- (a timeout, a signal, another process, or the start of the trace).  Set
-- wait_id to a slice's id (the UI shows it in the slice's details); NULL
-- takes the longest wait that a traced call ended.
with recursive params as (select null as wait_id),
calls as materialized (
  select s.id, s.ts, s.dur, s.name, s.track_id, t.tid, t.name as thread
  from slice s join thread_track tt on s.track_id = tt.id join thread t using (utid)
  where s.depth = 0
),
waits as materialized (
  select * from calls
  where name glob 'FUTEX_WAIT*' or name glob 'FUTEX_LOCK_PI*' or name glob 'futex_wait*'
    or name in ('select', 'pselect6', 'poll', 'ppoll', 'epoll_wait', 'epoll_pwait',
      'epoll_pwait2', 'read', 'readv', 'recvfrom', 'recvmsg', 'recvmmsg')
),
waker_of(wait_id, call_id) as materialized (
  select k.parent_id, min(f.slice_out)
  from flow f join slice k on k.id = f.slice_in and k.name = 'woken'
  group by k.parent_id
),
chain(step, wait_id) as (
  select 0, coalesce((select wait_id from params),
    (select w.id from waits w join waker_of k on k.wait_id = w.id order by w.dur desc, w.id limit 1))
  union all
  select c.step + 1, (select w.id from waits w, calls k
      where k.id = (select call_id from waker_of where wait_id = c.wait_id)
        and w.track_id = k.track_id and w.ts + w.dur <= k.ts
      order by w.ts + w.dur desc limit 1)
  from chain c where c.wait_id is not null and c.step < 50
)
select c.step, w.tid as waiter, w.thread, w.name as wait, c.wait_id, w.ts, w.dur,
  k.tid as woken_by, k.name as waking_call, k.ts as waking_call_ts
from chain c join waits w on w.id = c.wait_id
left join waker_of o on o.wait_id = c.wait_id left join calls k on k.id = o.call_id
order by c.step;
