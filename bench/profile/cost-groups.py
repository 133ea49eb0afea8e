#!/usr/bin/env python3
"""Turns two callgrind outputs of request-profile.py (a run of N transacts and a run of 200,
kept with --keep PREFIX) into a table of where the instructions of one transact go, by group.

  bench/profile/request-profile.py --products ... --tool callgrind --requests 2000 --keep /tmp/cg
  bench/profile/cost-groups.py /tmp/cg.2000 /tmp/cg.200 [--top 40]
  bench/profile/cost-groups.py /tmp/new.2000 /tmp/new.200 --before /tmp/old.2000 /tmp/old.200
      (the groups before and after side by side, and the functions that changed most)

Each function's own (exclusive) instructions in the long run minus the short run, divided by the
difference in requests, is put in the first group whose pattern matches its demangled name, so
the groups add up to the instructions per transact. The Swift runtime (retain/release, allocation,
metadata, hashing, generic collection code) is its own group: its cost is what the other groups'
code asks of it, and the inclusive figures below the table put it back under the phase that asked
(callgrind_annotate --inclusive=yes of one function per phase).
"""
import argparse, re, subprocess, sys

# (group, pattern on the function's module-qualified name, specialisation and closure prefixes
# and the argument list left off): the first match wins, so order matters.
GROUPS = [
    ("bookkeeping (counters, latency ring, trace taps)",
     r"Counters|Statistics|TrafficTap|Trace|Latency|latency|\.trace|\.record"),
    ("JSON decode", r"^JSONCodec\.(JSONParser|JSONValue|JSONNumber|UTF8|JSONStringScan|Base64\.decode)|"
                    r"^ControlProtocol\.(Request\.decod|.*[Ff]ast|ParamReader|RequestID|Method|IncomingMessage)"),
    ("reply encoding", r"^JSONCodec\.|^ControlProtocol\.|RequestOperation\.reply|ResponseEncoder"),
    ("framing (device frames, client lines)", r"Fram|ByteSearch|LineBuffer|consumeRequestBytes|"
                                              r"Accessory\.(sendFrame|frameCompletes|didReceive)"),
    ("queue and operation", r"^Operations\.|^AccessoryCore\."),
    ("client connection and output", r"^ControlServer\."),
    ("event loop and syscall wrappers", r"^IOLoop\.|^SystemCalls\.|^Transports\.|^accessoryd\.|epoll|"
                                        r"asynccancel|^__GI_|^__libc|^read$|^write$|^__read|^__write|"
                                        r"syscall|timerfd|eventfd|clock_gettime|__vdso|^cas_|^pthread_|^send$|^recv"),
    ("Swift runtime: other (uniqueness, metadata, hashing, generic stdlib)",
     r"^(initializeWithCopy|initializeWithTake|assignWithCopy|assignWithTake|destroy|getEnumTag\w*|"
     r"storeEnumTag\w*|outlined \w+|\w+ value witness) (for|of) "),
    ("Swift runtime: retain/release", r"swift_retain|swift_release|RefCount|swift_unowned|"
                                      r"swift_bridgeObject|swift_weak|swift_nonatomic"),
    ("Swift runtime: allocation", r"malloc|free|_int_|swift_allocObject|swift_deallocObject|swift_slowAlloc|"
                                  r"swift_slowDealloc|swift_deallocClassInstance|"
                                  r"ContiguousArrayStorage|swift_arrayDestroy|posix_memalign|tcache|"
                                  r"swift_allocBox|deallocUninitialized|_allocateUninitialized"),
    ("Swift runtime: other (uniqueness, metadata, hashing, generic stdlib)",
     r"^swift|^Swift\.|^__swift|^_swift|getCache|Hasher|swift::|memcpy|memmove|memset|memcmp|^outlined"),
]


def subject(full_name):
    """The module-qualified function a demangled name is about: 'closure #1 in', 'generic
    specialization <...> of' and the like, and the argument list, left off."""
    name = full_name
    while True:
        stripped = re.sub(r"^((implicit )?closure #\d+ (.*? )?in |partial apply for |static |protocol witness for |\(extension in \w+\):|implicit closure #\d+ in |merged |outlined \w+ of |"
                          r"(\w+ )*specialization <.*?> of |reabstraction thunk helper .*? of )", "", name)
        if stripped == name:
            break
        name = stripped
    return name.split("(", 1)[0]


# The phases of a transact, each one function whose inclusive cost (itself and all it calls,
# the runtime included) is shown under the table: (label, pattern on the simplified name).
PHASES = [
    ("client bytes in: read, split, decode, queue (ClientConnection.readInput)", r"^ClientConnection\.readInput\("),
    # The control server calls the fast path itself since 2026-11-29.
    ("· JSON decode (Request.decodeFastPath; IncomingMessage.decode before)",
     r"^static (IncomingMessage\.decode(<A>)?\(_:maxDepth:\)|Request\.decodeFastPath\(_:names:\))"),
    ("· resolve, queue and, on an idle accessory, launch (AccessoryRegistry.handle)",
     r"^(specialized )?AccessoryRegistry\.handle\(_:from:\)"),
    ("· · launch: conditions, execute, frame, write to the device (DeviceQueue.pump)", r"^DeviceQueue\.pump\(\)"),
    ("device bytes in: read, frame, finish, reply (StreamChannel.readAvailable)",
     r"^StreamChannel\.readAvailable\("),
    ("· operation finish and reply (LoopOperation.finish)", r"^LoopOperation\.finish\(error:\)"),
    # Encoded on the stack and written from there since 2026-11-29 (the closures), into an
    # array and delivered before.
    ("· · reply encoding (ResponseEncoder.withSuccessLine's encoding; successLine before)",
     r"^(static ResponseEncoder\.successLine<|partial apply for closure #1 in static ResponseEncoder\.withSuccessLine<)"),
    ("· · reply written (ClientConnection.respond's write; deliver before)",
     r"^(ClientConnection\.deliver\(|closure #1 in ClientConnection\.respond<)"),
    ("· the operation freed (RequestOperation deinit)", r"^RequestOperation\.__deallocating_deinit"),
]


def self_costs(path, inclusive=False):
    """{function name as callgrind_annotate prints it: own (or inclusive) instructions}."""
    text = subprocess.run(["callgrind_annotate", "--threshold=100", f"--inclusive={'yes' if inclusive else 'no'}", path],
                          capture_output=True, text=True, check=True).stdout
    costs = {}
    for line in text.splitlines():
        match = re.match(r"^\s*([\d,]+)\s+\([\s\d.]+%\)\s+(?:\S*?):(.*?)(?: \[[^\]]*\])?$", line)
        if match and "PROGRAM TOTALS" not in line:
            costs[match.group(2)] = costs.get(match.group(2), 0) + int(match.group(1).replace(",", ""))
    return costs


def requests_of(path):
    match = re.search(r"\.(\d+)$", path)
    if not match:
        sys.exit(f"cost-groups: {path} does not end in .N (the number of requests of its run)")
    return int(match.group(1))


def demangle(names, simplified):
    """Demangled names (swift demangle), in the order given; the full form names the module."""
    result = subprocess.run(["swift", "demangle"] + (["--simplified"] if simplified else []),
                            input="\n".join(names) + "\n", capture_output=True, text=True)
    lines = result.stdout.splitlines()
    return lines if result.returncode == 0 and len(lines) == len(names) else names


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("long", help="callgrind output of the long run (its name ends in .N)")
    parser.add_argument("short", help="callgrind output of the short run (its name ends in .N)")
    parser.add_argument("--top", type=int, default=30, help="list this many functions with their group")
    parser.add_argument("--before", nargs=2, metavar=("LONG", "SHORT"),
                        help="the two outputs of an earlier build: show both and the difference")
    args = parser.parse_args()
    after = per_transact(args.long, args.short)
    before = per_transact(*args.before) if args.before else None
    names = sorted(set(after) | set(before or {}))
    readable = dict(zip(names, demangle(names, simplified=True)))
    full = dict(zip(names, demangle(names, simplified=False)))
    group_of = {name: next((g for g, pattern in GROUPS if re.search(pattern, subject(full[name]))), "other")
                for name in names}
    table = list(dict.fromkeys([group for group, _ in GROUPS] + ["other"]))

    def by_group(costs):
        sums = dict.fromkeys(table, 0.0)
        for name, cost in costs.items():
            sums[group_of[name]] += cost
        return sums

    now = by_group(after)
    total = sum(after.values())
    phases(args, before is not None)
    if before is None:
        print("| group | instructions per transact | share |\n|---|---:|---:|")
        for group in table:
            print(f"| {group} | {now[group]:,.0f} | {now[group] / total:.0%} |")
        print(f"| **total** | **{total:,.0f}** | 100% |\n")
        print(f"Top {args.top} functions (own instructions per transact, group):")
        for name in sorted(after, key=after.get, reverse=True)[:args.top]:
            print(f"{after[name]:8,.0f}  {group_of[name][:28]:28}  {readable[name][:150]}")
        return
    then = by_group(before)
    total_before = sum(before.values())
    print("| group | before | after | change |\n|---|---:|---:|---:|")
    for group in table:
        print(f"| {group} | {then[group]:,.0f} | {now[group]:,.0f} | {now[group] - then[group]:+,.0f} |")
    print(f"| **total** | **{total_before:,.0f}** | **{total:,.0f}** | **{total - total_before:+,.0f}** |\n")
    change = {name: after.get(name, 0) - before.get(name, 0) for name in names}
    print(f"The {args.top} functions whose own instructions per transact changed most:")
    for name in sorted(change, key=lambda n: abs(change[n]), reverse=True)[:args.top]:
        print(f"{change[name]:+8,.0f}  {group_of[name][:28]:28}  {readable[name][:150]}")


def phases(args, compare):
    """Prints the inclusive cost of each phase (a function may appear once generic and once
    specialized: the larger is taken, as one calls the other)."""
    def table(long_path, short_path):
        costs = per_transact(long_path, short_path, inclusive=True)
        names = list(costs)
        simple = dict(zip(names, demangle(names, simplified=True)))
        return [max([costs[n] for n in names if re.search(pattern, simple[n])], default=0.0) for _, pattern in PHASES]
    now = table(args.long, args.short)
    then = table(*args.before) if compare else None
    print("Inclusive instructions per transact by phase (callgrind_annotate --inclusive=yes; phases nest):\n")
    print("| phase | " + ("before | after |" if compare else "instructions |") + "\n|---|" + ("---:|---:|" if compare else "---:|"))
    for i, (label, _) in enumerate(PHASES):
        print(f"| {label} | " + (f"{then[i]:,.0f} | " if compare else "") + f"{now[i]:,.0f} |")
    print()


def per_transact(long_path, short_path, inclusive=False):
    """{function: own (or inclusive) instructions per transact}: the long run minus the short."""
    requests = requests_of(long_path) - requests_of(short_path)
    long, short = self_costs(long_path, inclusive), self_costs(short_path, inclusive)
    return {name: (long.get(name, 0) - short.get(name, 0)) / requests for name in set(long) | set(short)}


if __name__ == "__main__":
    main()
