//! The kinds of wrk scripts people keep that failed (issue 57), through the API as wrk runs
//! them: `init(args)` with the URL at `args[0]` and `wrk.thread.addr` set there, `done`'s stats
//! objects as wrk's (`#latency`, `latency(i)`, `latency[i]`), `os.exit(n)` in every kind of
//! hook kept as a status with what was printed before, and hooks that never return stopped at
//! their bound or by their flag. (`require` of a C module is run by the CLI's tests, under the
//! real binary, beside Debian's wrk.)

use std::path::Path;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::tests::{target, Known, Loopback};
use super::*;

fn script(name: &str, src: &str, args: &[&str]) -> Script {
    let args = args.iter().map(|a| a.to_string()).collect();
    Script::from_source(Path::new(name), src.into(), args).unwrap()
}

fn start(s: &Script, bound: &Bound) -> Result<Thread, Failed> {
    Thread::new(
        s,
        &target(),
        Arc::new(Loopback),
        &ThreadSetup::default(),
        bound,
    )
}

/// wrk's init(args): args[0] is the URL as given, args[1..] what followed `--`; `#args`
/// counts from 1, as Lua's length does.
#[test]
fn init_gets_the_url_at_index_zero() {
    let src =
        "function init(args)\n  io.write(args[0], ' ', #args, ' ', args[1], ' ', args[2])\nend";
    let mut t = start(&script("args0.lua", src, &["a", "b"]), &Bound::default()).unwrap();
    assert_eq!(
        String::from_utf8(t.take_output()).unwrap(),
        "http://example.com:8080/ 2 a b"
    );
}

/// `wrk.thread` exists in init, with the address setup gave; setting it to what wrk.lookup
/// gives points the thread there (once: the caller takes the change); anything else fails
/// where it is set, in one line.
#[test]
fn init_points_its_thread_elsewhere() {
    let src =
        "function init(args)\n  io.write(type(wrk.thread), ' ', tostring(wrk.thread.addr))\n  \
               wrk.thread.addr = wrk.lookup('h', args[1])[1]\nend";
    let s = script("addr.lua", src, &["9090"]);
    let given = ThreadSetup {
        addr: Some("127.0.0.1:8080".into()),
        globals: vec![],
    };
    let mut t = Thread::new(&s, &target(), Arc::new(Loopback), &given, &Bound::default()).unwrap();
    assert_eq!(
        String::from_utf8(t.take_output()).unwrap(),
        "userdata 127.0.0.1:8080"
    );
    assert_eq!(t.take_addr(), Some("127.0.0.1:9090".parse().unwrap()));
    assert_eq!(t.take_addr(), None, "taken once");
    // A later hook moves it again (wrk2's multiple-endpoints.lua does so in response()).
    let src = "function response() wrk.thread.addr = '127.0.0.1:7070' end";
    let mut t = start(&script("later.lua", src, &[]), &Bound::default()).unwrap();
    assert_eq!(t.take_addr(), None);
    t.response(200, &[], b"").unwrap();
    assert_eq!(t.take_addr(), Some("127.0.0.1:7070".parse().unwrap()));

    let bad = "function init() wrk.thread.addr = 'nowhere' end";
    let e = start(&script("bad.lua", bad, &[]), &Bound::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.starts_with("bad.lua:1: ")
            && e.contains("thread.addr must be an address")
            && e.contains("\"nowhere\"")
            && e.ends_with("(in init())"),
        "{e}"
    );
    // setup()'s thread.addr is checked the same way.
    let bad = "function setup(t) t.addr = 5 end";
    let e = Setup::new(
        &script("bad2.lua", bad, &[]),
        &target(),
        Arc::new(Loopback),
        1,
        None,
        &Bound::default(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(
        e.contains("not a number") && e.ends_with("(in setup())"),
        "{e}"
    );
}

/// A histogram dump as people write it, over 100 values 1..=100 once each: `#latency`,
/// `latency(i)` for each (value and count), 0 and `#latency` past the last and before the
/// first (wrk's stats_value_at), `latency[i]` the key itself as a string (wrk's `__index`
/// leaves it), and the named fields beside.
#[test]
fn done_dumps_a_histogram_as_under_wrk() {
    let src = r#"
        function done(summary, latency, requests)
          local sum, values = 0, 0
          for i = 1, #latency do
            local v, c = latency(i)
            sum = sum + c
            values = values + v
          end
          local p, pc = latency(#latency + 1)
          local z, zc = latency(0)
          local f = latency(2.9)
          io.write(#latency, " ", #requests, " ", sum, " ", values, " ", p, " ", pc, " ",
                   z, " ", zc, " ", f, " ", type(latency[1]), " ", latency[1], " ",
                   latency[2.5], " ", latency.min, " ", latency:percentile(99), "\n")
        end"#;
    let s = script("dump.lua", src, &[]);
    let (mut setup, _) = Setup::new(
        &s,
        &target(),
        Arc::new(Loopback),
        1,
        None,
        &Bound::default(),
    )
    .unwrap();
    let out = setup
        .done(
            &Summary::default(),
            Rc::new(Known),
            Rc::new(Known),
            vec![vec![]],
            &Bound::default(),
        )
        .unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "100 100 100 5050 0 100 0 100 2 string 1 2.5 1 99\n"
    );
}

/// `os.exit(n)` ends wrk's process with n's low byte (`true`/nothing 0, `false` 1, a numeric
/// string its number, a fraction truncated); here it comes back as the status, with what the
/// hook printed before.
#[test]
fn os_exit_in_init_is_a_status_with_the_output_before() {
    for (arg, status) in [
        ("3", 3),
        ("256", 0),
        ("-1", 255),
        ("true", 0),
        ("false", 1),
        ("", 0),
        ("'7'", 7),
        ("2.7", 2),
    ] {
        let src = format!("print('top')\nfunction init() io.write('before\\n'); os.exit({arg}); io.write('after') end");
        let f = start(&script("exit.lua", &src, &[]), &Bound::default())
            .err()
            .unwrap();
        assert_eq!(f.error.exit_status(), Some(status), "os.exit({arg})");
        assert_eq!(
            f.error.to_string(),
            format!("exit.lua: os.exit({status}) in init()")
        );
        assert_eq!(String::from_utf8(f.printed).unwrap(), "top\nbefore\n");
    }
    // Not a number: a Lua error, as wrk's.
    let f = start(&script("t.lua", "os.exit({})", &[]), &Bound::default())
        .err()
        .unwrap();
    assert_eq!(f.error.exit_status(), None);
    assert_eq!(
        f.error.to_string(),
        "t.lua:1: bad argument #1 to 'exit' (number expected, got table) (in the script's top level)"
    );
}

/// In the per-request hooks and in setup and done: the same status, named by its hook, also
/// when a `pcall` around it caught the error that carries it (wrk's process would be gone).
#[test]
fn os_exit_in_every_hook() {
    let src = "n = 0\nfunction request() n = n + 1; if n == 3 then pcall(os.exit, 9) end; \
               return wrk.format() end\nfunction response() os.exit(4) end\n\
               function delay() os.exit(5) end";
    let s = script("hooks.lua", src, &[]);
    let mut t = start(&s, &Bound::default()).unwrap();
    t.request().unwrap();
    t.request().unwrap();
    let e = t.request().unwrap_err();
    assert_eq!(
        (e.exit_status(), e.to_string()),
        (Some(9), "hooks.lua: os.exit(9) in request()".into())
    );
    let mut t = start(&s, &Bound::default()).unwrap();
    let e = t.response(200, &[], b"").unwrap_err();
    assert_eq!(e.to_string(), "hooks.lua: os.exit(4) in response()");
    let e = t.delay().unwrap_err();
    assert_eq!(e.exit_status(), Some(4), "the state stays ended");

    // At the top level (a script that finds nothing to do, as multi-request-json.lua's) and
    // in setup(), before any thread starts.
    let f = start(
        &script("top.lua", "print('nothing to send')\nos.exit()", &[]),
        &Bound::default(),
    )
    .err()
    .unwrap();
    assert_eq!(
        (f.error.to_string(), String::from_utf8(f.printed).unwrap()),
        (
            "top.lua: os.exit(0) in the script's top level".to_string(),
            "nothing to send\n".to_string()
        )
    );
    let s = script("setup.lua", "function setup(t) os.exit(8) end", &[]);
    let f = Setup::new(
        &s,
        &target(),
        Arc::new(Loopback),
        2,
        None,
        &Bound::default(),
    )
    .err()
    .unwrap();
    assert_eq!(f.error.to_string(), "setup.lua: os.exit(8) in setup()");
    let s = script(
        "phases.lua",
        "function setup(t) print('setup') end\nfunction done() print('done'); os.exit(6) end",
        &[],
    );
    let (mut setup, _) = Setup::new(
        &s,
        &target(),
        Arc::new(Loopback),
        1,
        None,
        &Bound::default(),
    )
    .unwrap();
    let f = setup
        .done(
            &Summary::default(),
            Rc::new(Known),
            Rc::new(Known),
            vec![vec![]],
            &Bound::default(),
        )
        .unwrap_err();
    assert_eq!(f.error.to_string(), "phases.lua: os.exit(6) in done()");
    assert_eq!(String::from_utf8(f.printed).unwrap(), "setup\ndone\n");
}

/// A hook that fails after printing: its output comes with the error.
#[test]
fn output_before_a_failure_is_kept() {
    let src = "print('loading')\nfunction init() io.write('half ') error('broken') end";
    let f = start(&script("late.lua", src, &[]), &Bound::default())
        .err()
        .unwrap();
    assert_eq!(f.error.to_string(), "late.lua:2: broken (in init())");
    assert_eq!(String::from_utf8(f.printed).unwrap(), "loading\nhalf ");
}

fn bound_in(ms: u64) -> Bound {
    Bound {
        until: Some(Instant::now() + Duration::from_millis(ms)),
        limit: "by the test's bound".into(),
        cancel: None,
    }
}

/// An endless loop in the top level, in init (also one that catches what stops it with pcall,
/// in a coroutine, or after a compiled warm-up), in setup and in done stops at the bound, in
/// one line naming the hook; within a second of it.
#[test]
fn hooks_that_never_return_stop_at_their_bound() {
    let cases = [
        ("while true do end", "the script's top level"),
        ("function init() while true do end end", "init()"),
        (
            "function init() while true do pcall(function() while true do end end) end end",
            "init()",
        ),
        (
            "function init() local co = coroutine.wrap(function() while true do end end); co() end",
            "init()",
        ),
        (
            "function init() local x = 0; for i = 1, 1e6 do x = x + i end; while true do x = x + 1 end end",
            "init()",
        ),
    ];
    for (src, hook) in cases {
        let t0 = Instant::now();
        let f = start(&script("loop.lua", src, &[]), &bound_in(300))
            .err()
            .unwrap();
        let took = t0.elapsed();
        let e = f.error.to_string();
        assert!(
            e.starts_with(&format!(
                "loop.lua: {hook} did not return by the test's bound (stopped after"
            )),
            "{src}: {e}"
        );
        assert!(
            took >= Duration::from_millis(300) && took < Duration::from_millis(1300),
            "{src}: {took:?}"
        );
    }
    let s = script("setup.lua", "function setup() while true do end end", &[]);
    let e = Setup::new(&s, &target(), Arc::new(Loopback), 1, None, &bound_in(200))
        .err()
        .unwrap()
        .to_string();
    assert!(e.starts_with("setup.lua: setup() did not return"), "{e}");
    let s = script("done.lua", "function done() while true do end end", &[]);
    let (mut setup, _) = Setup::new(
        &s,
        &target(),
        Arc::new(Loopback),
        1,
        None,
        &Bound::default(),
    )
    .unwrap();
    let e = setup
        .done(
            &Summary::default(),
            Rc::new(Known),
            Rc::new(Known),
            vec![vec![]],
            &bound_in(200),
        )
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("done.lua: done() did not return"), "{e}");
    // The probe's request() too.
    let s = script("req.lua", "function request() while true do end end", &[]);
    let mut t = start(&s, &Bound::default()).unwrap();
    let e = t.request_within(&bound_in(200)).unwrap_err().to_string();
    assert!(e.starts_with("req.lua: request() did not return"), "{e}");
}

/// The bound's flag (Ctrl-C) stops an endless init at once, as `Interrupted`; a hook that
/// returns in time runs as usual, compiled afterwards.
#[test]
fn the_flag_interrupts_and_a_prompt_hook_is_untouched() {
    let flag = Arc::new(AtomicBool::new(false));
    let bound = Bound {
        until: None,
        limit: String::new(),
        cancel: Some(flag.clone()),
    };
    let f2 = flag.clone();
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        f2.store(true, Ordering::Relaxed);
    });
    let f = start(
        &script("spin.lua", "function init() while true do end end", &[]),
        &bound,
    )
    .err()
    .unwrap();
    setter.join().unwrap();
    assert_eq!(f.error.to_string(), "spin.lua: init() was interrupted");
    let src = "function init() x = 0; for i = 1, 1e6 do x = x + 1 end end\n\
               function request() x = x + 1; return wrk.format(nil, '/' .. x) end";
    let mut t = start(&script("fine.lua", src, &[]), &bound_in(5000)).unwrap();
    for i in 1..=3 {
        t.request().unwrap();
        assert_eq!(t.requests()[0].path, format!("/{}", 1_000_000 + i));
    }
}

/// `require` searches where Debian's wrk does, `LUA_PATH`/`LUA_CPATH` as LuaJIT reads them
/// (`;;` for the default); `ffi` only by `require`, as wrk's LuaJIT opens it; `debug` there.
#[test]
fn search_paths_and_libraries_as_wrks() {
    let src = "io.write(package.path, '\\n', package.cpath, '\\n', type(ffi), ' ', \
               type(require('ffi')), ' ', type(debug), ' ', type(jit), ' ', type(bit))";
    let mut t = start(&script("paths.lua", src, &[]), &Bound::default()).unwrap();
    let out = String::from_utf8(t.take_output()).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    // Unless the test's environment sets them (then LuaJIT's rule applies, tested below).
    if std::env::var_os("LUA_PATH").is_none() {
        assert_eq!(lines[0], DEFAULT_PATH);
    }
    if std::env::var_os("LUA_CPATH").is_none() {
        assert_eq!(lines[1], DEFAULT_CPATH);
    }
    assert_eq!(lines[2], "nil table table table table");
    assert_eq!(
        env::search_path_from(Some("/x/?.lua;;"), "D"),
        "/x/?.lua;D;"
    );
    assert_eq!(env::search_path_from(Some("/y/?.so"), "D"), "/y/?.so");
    assert_eq!(env::search_path_from(None, "D"), "D");
}

/// A Lua module from a directory on `package.path` loads with `require`, as under wrk.
#[test]
fn a_lua_module_loads_with_require() {
    let dir = std::env::temp_dir().join(format!("barrage-script-mod-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("mymod.lua"),
        "return { twice = function(x) return 2 * x end }",
    )
    .unwrap();
    let src = format!(
        "package.path = '{}/?.lua;' .. package.path\nlocal m = require 'mymod'\n\
         wrk.path = '/' .. m.twice(21)",
        dir.display()
    );
    let t = start(&script("req.lua", &src, &[]), &Bound::default()).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(t.requests()[0].path, "/42");
}

/// Debian's lua-cjson, a C module, loads with `require` from where Debian's wrk finds it
/// (`package.cpath`), whole module and submodule (`cjson.safe`, in the same file): its
/// `lua_*` come from this test binary (the build script exports them).
#[test]
fn a_c_module_loads_with_require() {
    let so = DEFAULT_CPATH
        .split(';')
        .map(|p| p.replace('?', "cjson"))
        .find(|p| p.starts_with("/usr/lib/") && Path::new(p).is_file());
    if so.is_none() {
        barrage_testkit::missing(
            "no lua-cjson (apt-get install lua-cjson; scripts/test installs it)",
        );
        return;
    }
    let src = r#"
        local cjson = require "cjson"
        local safe = require "cjson.safe"
        local t = cjson.decode('{"paths": ["/a", "/b"], "n": 3}')
        wrk.method = "POST"
        wrk.path = t.paths[2] .. "/" .. t.n
        wrk.body = cjson.encode({ key = "value" })
        io.write(tostring(safe.decode("{broken")), " ", package.loaded.cjson == cjson and "same" or "other")
    "#;
    let mut t = start(&script("json.lua", src, &[]), &Bound::default()).unwrap();
    assert_eq!(String::from_utf8(t.take_output()).unwrap(), "nil same");
    let r = &t.requests()[0];
    assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/b/3"));
    assert_eq!(r.body, br#"{"key":"value"}"#);
}
