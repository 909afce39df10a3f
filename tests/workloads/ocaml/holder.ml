(* ocaml_holder - OCaml threads queued on the runtime lock while its holder
   is stuck in read() inside a C stub that never releases the lock.

     ocaml_holder [-t WAITERS=20] [--no-wait]
     ocaml_holder --join
       the main thread takes a Mutex, then joins (Thread.join) a thread
       that waits for that Mutex: a deadlock through the join.

   Ground truth on stdout (tests/workloads/README.md):
     pid=PID
     thread role=waiter idx=I tid=T      (WAITERS lines, any order)
     thread role=holder idx=0 tid=T      (the main thread, from the stub)
     blocked tid=T on=runtime_lock       (WAITERS lines, checked in /proc)
     ready
   (--join: "thread role=locker tid=T wants=m", "thread role=joiner tid=T
   on=thread", "blocked tid=T on=futex" for both, "ready")
   then it hangs until killed.  The waiters loop on Thread.yield/Unix.sleepf,
   so each of them releases and re-takes the runtime lock until the holder
   keeps it for good; from then on they sleep in the runtime's own
   acquire path (caml_thread_leave_blocking_section, or Thread.yield's). *)

external gettid : unit -> int = "lt_ocaml_gettid"

(* Blocks forever in read() on a silent pipe, keeping the runtime lock; a C
   helper thread verifies through /proc that the holder and every waiter
   sleep, then prints the "blocked" lines, "ready", and waits on the gate. *)
external hold_and_block : int array -> bool -> unit = "lt_ocaml_hold_and_block"
external check_asleep : int array -> unit = "lt_ocaml_check_asleep"

let join_cycle () =
  let m = Mutex.create () in
  Mutex.lock m;
  let ltid = ref 0 in
  let t = Thread.create (fun () ->
    ltid := gettid ();
    Printf.printf "thread role=locker tid=%d wants=m\n%!" !ltid;
    Mutex.lock m) () in
  while !ltid = 0 do Thread.yield (); Unix.sleepf 0.001 done;
  let me = gettid () in
  Printf.printf "thread role=joiner tid=%d on=thread\n%!" me;
  check_asleep [| !ltid; me |];
  Thread.join t

let usage () =
  prerr_endline "usage: ocaml_holder [-t WAITERS=20] [--no-wait] | --join";
  exit 2

let () =
  let waiters = ref 20 and no_wait = ref false and join = ref false in
  let rec parse = function
    | [] -> ()
    | "--no-wait" :: rest -> no_wait := true; parse rest
    | "--join" :: rest -> join := true; parse rest
    | "-t" :: n :: rest ->
        (match int_of_string_opt n with
         | Some v when v >= 1 && v <= 1000 -> waiters := v
         | _ -> usage ());
        parse rest
    | _ -> usage ()
  in
  parse (List.tl (Array.to_list Sys.argv));
  Printf.printf "pid=%d\n%!" (Unix.getpid ());
  if !join then (join_cycle (); exit 0);
  let tids = Array.make !waiters 0 in
  let started = ref 0 in
  let m = Mutex.create () in
  let waiter idx =
    let tid = gettid () in
    Mutex.lock m;
    tids.(idx) <- tid;
    Printf.printf "thread role=waiter idx=%d tid=%d\n%!" idx tid;
    incr started;
    Mutex.unlock m;
    (* keep asking for the runtime lock: each sleep gives it up *)
    while true do
      Unix.sleepf 0.001;
      Thread.yield ()
    done
  in
  for i = 0 to !waiters - 1 do
    ignore (Thread.create waiter i)
  done;
  let all_started () = Mutex.lock m; let n = !started in Mutex.unlock m; n = !waiters in
  while not (all_started ()) do Thread.yield (); Unix.sleepf 0.001 done;
  hold_and_block tids !no_wait
