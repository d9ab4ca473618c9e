//! Small pieces of the runner: placeholder expansion, free ports, CPU pinning, `requires` lookup,
//! barrage's own CPU time.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// Replaces `{name}` for every name in `vars`; other braces (shell `${X}`, awk) are left alone.
pub fn expand(template: &str, vars: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find('}') {
            Some(j) if vars.contains_key(&after[..j]) => {
                out.push_str(&vars[&after[..j]]);
                rest = &after[j + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Placeholders holding paths or URLs, shell-quoted (when they need it) for a command line.
pub fn shell_vars(vars: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    let mut v = vars.clone();
    for k in ["barrage", "dir", "out", "tmp", "url"] {
        if let Some(x) = v.get_mut(k) {
            *x = crate::study::shell_quote(x);
        }
    }
    v
}

/// `exec CMD` when CMD is one simple command, so the shell replaces itself with the contender:
/// the contender is then the group leader and `wait4`'s rusage covers it (a shell killed by the
/// stop signal never reaps its child, whose totals would be lost). Anything with shell control
/// operators, subshells, or leading variable assignments runs as written.
pub fn exec_simple(cmd: &str) -> String {
    let t = cmd.trim_start();
    if t.starts_with("exec ") || t.is_empty() {
        return cmd.to_string();
    }
    let first = t.split_whitespace().next().unwrap_or("");
    if first.contains('=') {
        return cmd.to_string();
    }
    let (mut single, mut double, mut escaped) = (false, false, false);
    let mut prev = ' ';
    for c in t.chars() {
        let before = std::mem::replace(&mut prev, c);
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            // `2>&1`, `<&3`: redirections, not background jobs.
            '&' if !single && !double && (before == '>' || before == '<') => {}
            '\\' if !single => escaped = true,
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            ';' | '&' | '|' | '(' | ')' | '\n' | '`' if !single && !double => {
                return cmd.to_string()
            }
            '`' if double => return cmd.to_string(),
            _ => {}
        }
    }
    format!("exec {t}")
}

/// A free TCP port on 127.0.0.1 (bound, read, released: a contender then binds it; the race with
/// another process taking it in between is accepted and shows as a never-ready trial).
pub fn free_port() -> std::io::Result<u16> {
    let l = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(l.local_addr()?.port())
}

/// Pins the calling thread (and threads it creates later) to `cpus`.
pub fn pin_current_thread(cpus: &[usize]) -> std::io::Result<()> {
    // SAFETY: cpu_set_t is plain data, filled before the call; pid 0 is the calling thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c, &mut set);
        }
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Whether a required command exists: a path that is an executable file, or a name on PATH.
pub fn find_command(cmd: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let exec = |p: &Path| {
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if cmd.contains('/') {
        return exec(Path::new(cmd));
    }
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| exec(&d.join(cmd))))
}

/// CPU time (user + sys) of this whole process so far.
pub fn self_cpu() -> Duration {
    // SAFETY: getrusage fills the struct.
    unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut ru) != 0 {
            return Duration::ZERO;
        }
        let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
        tv(ru.ru_utime) + tv(ru.ru_stime)
    }
}

/// The pinning plan: contender on the first half of the CPUs, generator on the rest.
pub fn split_cpus(cpus: &[usize]) -> Option<(Vec<usize>, Vec<usize>)> {
    if cpus.len() < 2 {
        return None;
    }
    let half = cpus.len().div_ceil(2);
    Some((cpus[..half].to_vec(), cpus[half..].to_vec()))
}

/// `pin = N`: the contender on the first `n` CPUs, the generator on the rest (None if none is left).
pub fn split_cpus_n(cpus: &[usize], n: usize) -> Option<(Vec<usize>, Vec<usize>)> {
    if n == 0 || n >= cpus.len() {
        return None;
    }
    Some((cpus[..n].to_vec(), cpus[n..].to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders() {
        let vars: BTreeMap<String, String> = [("port", "8080"), ("url", "http://h/")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let cases = [
            ("serve --port {port}", "serve --port 8080"),
            ("curl {url} -o ${HOME}/x", "curl http://h/ -o ${HOME}/x"),
            ("awk '{print $1}' {port}", "awk '{print $1}' 8080"),
            ("{", "{"),
            ("{port", "{port"),
            ("{{port}}", "{8080}"),
        ];
        for (t, want) in cases {
            assert_eq!(expand(t, &vars), want, "{t}");
        }
    }

    #[test]
    fn exec_only_simple_commands() {
        let cases = [
            ("server --port 1", "exec server --port 1"),
            ("python3 -c 'a; b' x", "exec python3 -c 'a; b' x"),
            ("node s.js > log 2>&1", "exec node s.js > log 2>&1"),
            ("a && b", "a && b"),
            ("a; b", "a; b"),
            ("a | b", "a | b"),
            ("a & exec b", "a & exec b"),
            ("exec a", "exec a"),
            ("FOO=1 a", "FOO=1 a"),
            ("echo \"$(date)\"", "exec echo \"$(date)\""),
            ("(a)", "(a)"),
            ("echo a\\;b", "exec echo a\\;b"),
        ];
        for (c, want) in cases {
            assert_eq!(exec_simple(c), want, "{c}");
        }
    }

    #[test]
    fn cpu_split() {
        assert_eq!(split_cpus(&[0]), None);
        assert_eq!(split_cpus(&[0, 1]), Some((vec![0], vec![1])));
        assert_eq!(split_cpus(&[0, 1, 2]), Some((vec![0, 1], vec![2])));
        assert_eq!(split_cpus_n(&[0, 1], 2), None);
        assert_eq!(
            split_cpus_n(&[0, 1, 2, 3], 1),
            Some((vec![0], vec![1, 2, 3]))
        );
    }

    #[test]
    fn commands() {
        assert!(find_command("sh"));
        assert!(find_command("/bin/sh"));
        assert!(!find_command("surely-no-such-command-barrage"));
    }
}
