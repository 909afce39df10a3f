(* ocaml5_sites - two OCaml functions lock the same Stdlib Mutex at known
   lines while a holder thread keeps it for known times: the call sites
   `record --stacks` must name in OCaml's terms (tests/live/test_ocaml5_stacks_live.c).
   Built by the real OCaml 5 compilers of ../shared/tools with -g.

     ocaml5_sites [-r ROUNDS=4] [-a HOLD_A_MS=30] [-b HOLD_B_MS=12] [--no-wait]

   After "ready" it reads one line from stdin (EOF also starts) unless
   --no-wait (tests/workloads/README.md): a recorder attached with -p has
   read the program's symbols by then.

   In each round the holder thread locks [sitelock]; the waiter thread
   calls [site_alpha], which locks it at a known line and sleeps in
   futex() (the holder checks /proc); the holder keeps it HOLD_A_MS more,
   then unlocks.  The same for [site_beta] with HOLD_B_MS.  Both are never
   inlined.  Ground truth on stdout (tests/workloads/README.md):
     pid=PID
     lock name=sitelock addr=0x... kind=mutex
     ready
     thread role=waiter idx=0 tid=T
     thread role=holder idx=0 tid=T
     site name=alpha func=Sites5.site_alpha line=N file=sites5.ml   (the lock call's line)
     site name=beta func=Sites5.site_beta line=N file=sites5.ml
     site name=release func=Sites5.hold_for line=N file=sites5.ml  (the holder's unlock)
     done rounds=R alpha_waits=R beta_waits=R alpha_wait_us=U beta_wait_us=U
   (U: the waiter's own measure of its total wait in each function). *)

external gettid : unit -> int = "st5_gettid"
external mutex_addr : Mutex.t -> int = "st5_mutex_addr"
external wait_blocked : int -> int -> unit = "st5_wait_blocked"

let sitelock = Mutex.create ()
let phase = Atomic.make 0
let waiter_tid = Atomic.make 0
let wait_a = ref 0.0
let wait_b = ref 0.0
let line_alpha = ref 0
let line_beta = ref 0
let line_unlock = ref 0

let say fmt = Printf.ksprintf (fun s -> print_string s; print_newline ()) fmt

let rec spin_until v want =
  if Atomic.get v < want then (Unix.sleepf 0.0002; spin_until v want)

let[@inline never] site_alpha () =
  let t0 = Unix.gettimeofday () in
  line_alpha := __LINE__; Mutex.lock sitelock;
  wait_a := !wait_a +. (Unix.gettimeofday () -. t0);
  Mutex.unlock sitelock

let[@inline never] site_beta () =
  let t0 = Unix.gettimeofday () in
  line_beta := __LINE__; Mutex.lock sitelock;
  wait_b := !wait_b +. (Unix.gettimeofday () -. t0);
  Mutex.unlock sitelock

(* The holder's part of one wait: lock, let the waiter in, see it asleep
   on the mutex, hold MS more, unlock. *)
let[@inline never] hold_for step ms =
  Mutex.lock sitelock;
  Atomic.set phase step;
  wait_blocked (Atomic.get waiter_tid) (mutex_addr sitelock);
  Unix.sleepf (float_of_int ms /. 1000.);
  line_unlock := __LINE__; Mutex.unlock sitelock;
  spin_until phase (step + 1)

let holder rounds hold_a hold_b =
  say "thread role=holder idx=0 tid=%d" (gettid ());
  let step = ref 1 in
  for _ = 1 to rounds do
    hold_for !step hold_a;
    step := !step + 2;
    hold_for !step hold_b;
    step := !step + 2
  done

let waiter rounds =
  let tid = gettid () in
  say "thread role=waiter idx=0 tid=%d" tid;
  Atomic.set waiter_tid tid;
  let step = ref 1 in
  for _ = 1 to rounds do
    spin_until phase !step;
    site_alpha ();
    Atomic.set phase (!step + 1);
    step := !step + 2;
    spin_until phase !step;
    site_beta ();
    Atomic.set phase (!step + 1);
    step := !step + 2
  done

let usage () =
  prerr_endline "usage: ocaml5_sites [-r ROUNDS=4] [-a HOLD_A_MS=30] [-b HOLD_B_MS=12] [--no-wait]";
  exit 2

let () =
  let rounds = ref 4 and hold_a = ref 30 and hold_b = ref 12 and no_wait = ref false in
  let num s lo hi = match int_of_string_opt s with
    | Some n when n >= lo && n <= hi -> n
    | _ -> usage () in
  let rec args = function
    | "-r" :: n :: rest -> rounds := num n 1 1000; args rest
    | "-a" :: n :: rest -> hold_a := num n 1 10000; args rest
    | "-b" :: n :: rest -> hold_b := num n 1 10000; args rest
    | "--no-wait" :: rest -> no_wait := true; args rest
    | [] -> ()
    | _ -> usage () in
  args (List.tl (Array.to_list Sys.argv));
  say "pid=%d" (Unix.getpid ());
  say "lock name=sitelock addr=0x%x kind=mutex" (mutex_addr sitelock);
  say "ready";
  if not !no_wait then ignore (In_channel.input_line stdin);
  let tw = Thread.create waiter !rounds in
  while Atomic.get waiter_tid = 0 do Unix.sleepf 0.0002 done;
  let th = Thread.create (fun () -> holder !rounds !hold_a !hold_b) () in
  Thread.join th;
  Thread.join tw;
  say "site name=alpha func=Sites5.site_alpha line=%d file=sites5.ml" !line_alpha;
  say "site name=beta func=Sites5.site_beta line=%d file=sites5.ml" !line_beta;
  say "site name=release func=Sites5.hold_for line=%d file=sites5.ml" !line_unlock;
  say "done rounds=%d alpha_waits=%d beta_waits=%d alpha_wait_us=%.0f beta_wait_us=%.0f"
    !rounds !rounds !rounds (!wait_a *. 1e6) (!wait_b *. 1e6)
