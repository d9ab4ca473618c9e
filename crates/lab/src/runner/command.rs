//! A contender's command line: placeholders filled (`{port}`, `{url}`, ...), paths shell-quoted
//! for `sh -c`, and `exec` in front of a simple command so the contender leads its own group.

use std::collections::BTreeMap;

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
}
