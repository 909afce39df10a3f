(* ocaml5_locks - OCaml 5 programs stuck on locks, built by the real OCaml 5
   compilers of ../shared/tools (tests/test_ocaml5_live.c).

     ocaml5_locks hold [-t WAITERS=20]
       the main thread keeps the runtime lock of domain 0 in a C stub
       blocked in read() on a socket; WAITERS threads queue for it
       (Unix.sleepf / Thread.yield loops), as in the seed's server.
     ocaml5_locks spin [-t WAITERS=4]
       as hold, but a thread (not the main one, which joins it) keeps the
       lock while it computes in a C stub on a stack of its own, as OCaml 5
       runs OCaml code on fiber stacks: the holder runs, and its stack
       pointer is not in its thread stack.  It released the lock once
       before, as a thread that yields does.
     ocaml5_locks spin-fresh [-t WAITERS=4]
       as spin, but the holder never released the lock since it started:
       the runtime keeps no pointer into its stack.
     ocaml5_locks convoy [-t WAITERS=64]
       WAITERS threads each wait in Unix.select then Unix.read on a socket
       (the runtime lock released); once the holder keeps the lock, a byte
       arrives on each socket and they all queue to take it back.
     ocaml5_locks domains [-d DOMAINS=3] [-t WAITERS=3]
       DOMAINS domains (Domain.spawn), each with WAITERS threads and its
       main thread keeping its own domain's runtime lock in read().
     ocaml5_locks busy [-t WAITERS=8]
       WAITERS threads and the main thread compute and yield: the runtime
       lock changes hands all the time, nobody is stuck (never a stall).
     ocaml5_locks deadlock
       two threads (a, b) take two Stdlib Mutexes in opposite orders; a
       third (c, in a spawned domain) waits for m2 too; the main thread
       waits for that domain in Domain.join.
     ocaml5_locks pipe
       a thread (r) takes a Stdlib Mutex, then reads a pipe whose write end
       only this process holds and nobody writes; a thread of a spawned
       domain (c) waits for the Mutex; the main thread joins that domain.
       Nothing can end it: every thread is in the chain or the runtime's own
       (the tick thread, the domains' backup threads).
     ocaml5_locks join-domain | join-thread
       the main thread takes a Stdlib Mutex, then joins a domain
       (Domain.join) or a thread (Thread.join) that waits for that Mutex
       (c): a deadlock through the join.

   Ground truth on stdout (tests/workloads/README.md):
     pid=PID
     thread role=waiter domain=D idx=I tid=T
     thread role=holder domain=D tid=T
     thread role=locker name=a|b|c tid=T holds=m1|m2|none wants=m1|m2 (deadlock)
     thread role=joiner tid=T on=domain|thread      (deadlock, pipe, joins)
     thread role=reader tid=T holds=m                                     (pipe)
     blocked tid=T on=runtime_lock|mutex
     ready
   then it hangs until killed.  Waiters print their tid before the holder
   takes the lock for good; nothing allocates after that (an OCaml 5 minor
   collection stops every domain, and a domain whose running thread sits
   in read() with its lock cannot answer). *)

external gettid : unit -> int = "lt5_gettid"
external expect_holders : int -> unit = "lt5_expect_holders"
external hold_and_block : int array -> int -> unit = "lt5_hold_and_block"
external hold_and_spin : int array -> int -> bool -> unit = "lt5_hold_and_spin"
external joined_by : Thread.t -> int -> bool = "lt5_joined_by"
external socketpair : unit -> Unix.file_descr = "lt5_socketpair"
external check_blocked : int array -> unit = "lt5_check_blocked"
external say : string -> unit = "lt5_say"
external expect_reader : int -> unit = "lt5_expect_reader"

(* ground truth, one whole line at a time (see lt5_say) *)
let sayf fmt = Printf.ksprintf say fmt

let usage () =
  prerr_endline "usage: ocaml5_locks hold|spin|spin-fresh|convoy|domains|busy|deadlock|pipe|join-domain|join-thread [-t WAITERS] [-d DOMAINS]";
  exit 2

let domain_id () = (Domain.self () :> int)

(* Starts N threads running BODY idx; returns their tids once all run. *)
let start_threads n dom body =
  let tids = Array.make n 0 in
  let started = ref 0 in
  let m = Mutex.create () in
  let run idx =
    let tid = gettid () in
    Mutex.lock m;
    tids.(idx) <- tid;
    sayf "thread role=waiter domain=%d idx=%d tid=%d" dom idx tid;
    incr started;
    Mutex.unlock m;
    body idx
  in
  for i = 0 to n - 1 do
    ignore (Thread.create run i)
  done;
  let all_started () = Mutex.lock m; let k = !started in Mutex.unlock m; k = n in
  while not (all_started ()) do Thread.yield (); Unix.sleepf 0.001 done;
  tids

(* keep asking for the runtime lock: each sleep gives it up *)
let rec spin _ = Unix.sleepf 0.001; Thread.yield (); spin 0

let hold waiters =
  let tids = start_threads waiters 0 spin in
  hold_and_block tids 0

(* The main thread joins the holder.  Thread.join's blocking section may
   first yield the runtime lock (the tick thread asked for it): the main
   thread then waits for the lock, and a holder that kept it from then on
   would leave it there, a fifth waiter.  So the holder keeps the lock only
   once it sees the main thread asleep in its join; else it ends, the join
   returns, and the main thread starts another. *)
let hold_spinning released waiters =
  let tids = start_threads waiters 0 spin in
  let main = gettid () in
  let rec attempt () =
    Thread.join (Thread.create (fun () ->
      if joined_by (Thread.self ()) main then hold_and_spin tids 0 released) ());
    attempt ()
  in
  attempt ()

let convoy waiters =
  let fds = Array.init waiters (fun _ -> socketpair ()) in
  let buf = Bytes.create 1 in
  let rec serve fd =
    ignore (Unix.select [ fd ] [] [] (-1.));
    ignore (Unix.read fd buf 0 1);
    serve fd
  in
  let tids = start_threads waiters 0 (fun i -> serve fds.(i)) in
  (* let every worker reach its select before the lock is kept *)
  Unix.sleepf 0.3;
  hold_and_block tids 0

let domains ndom waiters =
  expect_holders ndom;
  let in_domain () =
    let d = domain_id () in
    let tids = start_threads waiters d spin in
    hold_and_block tids d
  in
  for _ = 2 to ndom do
    ignore (Domain.spawn in_domain)
  done;
  in_domain ()

(* allocates: the minor collections stop and restart every domain *)
let rec work acc n = if n = 0 then acc else work (Float.sqrt (float_of_int n) +. acc) (n - 1)
let rec busy_loop _ = ignore (Sys.opaque_identity (work 0. 10_000)); Thread.yield (); busy_loop 0

let busy waiters =
  ignore (start_threads waiters 0 busy_loop);
  say "ready";
  busy_loop 0

let deadlock () =
  let m1 = Mutex.create () and m2 = Mutex.create () in
  let ready = Atomic.make 0 in
  let tids = Array.make 3 0 in
  let announce idx name holds wants =
    tids.(idx) <- gettid ();
    sayf "thread role=locker name=%s tid=%d holds=%s wants=%s" name tids.(idx) holds wants;
    Atomic.incr ready
  in
  let locker idx name first second holds wants () =
    Mutex.lock first;
    announce idx name holds wants;
    while Atomic.get ready < 2 do Thread.yield () done;
    Mutex.lock second
  in
  ignore (Thread.create (locker 0 "a" m1 m2 "m1" "m2") ());
  ignore (Thread.create (locker 1 "b" m2 m1 "m2" "m1") ());
  while Atomic.get ready < 2 do Thread.yield (); Unix.sleepf 0.001 done;
  (* a third waiter for m2, in another domain, which the main thread joins *)
  let d = Domain.spawn (fun () -> announce 2 "c" "none" "m2"; Mutex.lock m2) in
  while Atomic.get ready < 3 do Thread.yield (); Unix.sleepf 0.001 done;
  sayf "thread role=joiner tid=%d on=domain" (gettid ());
  check_blocked tids;
  Domain.join d

let pipe_wait () =
  let m = Mutex.create () in
  let rd, wr = Unix.pipe () in
  let ready = Atomic.make 0 in
  let tids = Array.make 1 0 in
  ignore (Thread.create (fun () ->
    Mutex.lock m;
    let tid = gettid () in
    sayf "thread role=reader tid=%d holds=m" tid;
    expect_reader tid;
    Atomic.incr ready;
    let b = Bytes.create 1 in
    ignore (Unix.read rd b 0 1);
    Mutex.unlock m) ());
  while Atomic.get ready < 1 do Thread.yield (); Unix.sleepf 0.001 done;
  let d = Domain.spawn (fun () ->
    tids.(0) <- gettid ();
    sayf "thread role=locker name=c tid=%d holds=none wants=m" tids.(0);
    Atomic.incr ready;
    Mutex.lock m) in
  while Atomic.get ready < 2 do Thread.yield (); Unix.sleepf 0.001 done;
  sayf "thread role=joiner tid=%d on=domain" (gettid ());
  check_blocked tids;
  Domain.join d;
  ignore (Sys.opaque_identity wr)

let join_cycle on =
  let m = Mutex.create () in
  Mutex.lock m;
  let tids = Array.make 1 0 in
  let ready = Atomic.make 0 in
  let body () =
    tids.(0) <- gettid ();
    sayf "thread role=locker name=c tid=%d holds=none wants=m" tids.(0);
    Atomic.incr ready;
    Mutex.lock m
  in
  let join =
    if on = "domain" then (let d = Domain.spawn body in fun () -> Domain.join d)
    else (let t = Thread.create body () in fun () -> Thread.join t)
  in
  while Atomic.get ready < 1 do Thread.yield (); Unix.sleepf 0.001 done;
  let me = gettid () in
  sayf "thread role=joiner tid=%d on=%s" me on;
  (* the joiner too must be seen asleep (in its futex wait) before ready *)
  check_blocked [| tids.(0); me |];
  join ()

let () =
  let waiters = ref (-1) and ndom = ref 3 in
  let rec parse = function
    | [] -> ()
    | "-t" :: n :: rest ->
        (match int_of_string_opt n with
         | Some v when v >= 1 && v <= 1000 -> waiters := v
         | _ -> usage ());
        parse rest
    | "-d" :: n :: rest ->
        (match int_of_string_opt n with
         | Some v when v >= 1 && v <= 16 -> ndom := v
         | _ -> usage ());
        parse rest
    | _ -> usage ()
  in
  let mode, args = match List.tl (Array.to_list Sys.argv) with m :: r -> m, r | [] -> usage () in
  parse args;
  sayf "pid=%d" (Unix.getpid ());
  let w dflt = if !waiters < 0 then dflt else !waiters in
  match mode with
  | "hold" -> hold (w 20)
  | "spin" -> hold_spinning true (w 4)
  | "spin-fresh" -> hold_spinning false (w 4)
  | "convoy" -> convoy (w 64)
  | "domains" -> domains !ndom (w 3)
  | "busy" -> busy (w 8)
  | "deadlock" -> deadlock ()
  | "pipe" -> pipe_wait ()
  | "join-domain" -> join_cycle "domain"
  | "join-thread" -> join_cycle "thread"
  | _ -> usage ()
