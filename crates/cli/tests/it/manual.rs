//! What barrage ships beside the binary, made from the same declarations as its flags: the bash
//! completion script loaded into a real bash completes `barrage load --ht` to exactly the HTTP
//! flags, zsh and fish scripts name the load options, the man page renders with `man -l` and
//! lists the load options and the exit statuses, and `--help` ends with the exit statuses.

use std::io::Write;
use std::process::{Command, Stdio};

fn barrage(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_barrage"))
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// What bash's completion gives for the words `words` (the cursor on the last), with the
/// script `barrage completions bash` prints sourced as a user would.
fn complete_bash(words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let out = Command::new("bash")
        .arg("--norc")
        .arg("-c")
        .arg(format!(
            "source <('{}' completions bash); COMP_WORDS=({}); COMP_CWORD={}; COMP_LINE=\"${{COMP_WORDS[*]}}\"; \
             COMP_POINT=${{#COMP_LINE}}; \
             _barrage barrage \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            env!("CARGO_BIN_EXE_barrage"),
            quoted.join(" "),
            words.len() - 1
        ))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let mut got: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    got.sort();
    got
}

#[test]
fn bash_completes_load_flags_from_their_declaration() {
    assert_eq!(
        complete_bash(&["barrage", "load", "--ht"]),
        ["--http1.0", "--http2", "--http3"]
    );
    assert_eq!(
        complete_bash(&["barrage", "load", "--no-"]),
        ["--no-echo-check", "--no-keepalive"]
    );
    // A choice's values come from the declaration too.
    assert_eq!(
        complete_bash(&["barrage", "load", "--targets-order", ""]),
        ["random", "round-robin"]
    );
    assert_eq!(
        complete_bash(&["barrage", "comp"]),
        ["compare", "completions"]
    );
}

#[test]
fn zsh_and_fish_scripts_name_the_load_options() {
    let zsh = barrage(&["completions", "zsh"]);
    assert!(zsh.starts_with("#compdef barrage"), "{}", &zsh[..40]);
    assert!(zsh.contains("--ws-max-message=") && zsh.contains("round-robin"));
    let fish = barrage(&["completions", "fish"]);
    assert!(
        fish.contains("-l http3") && fish.contains("-s c -l connections"),
        "fish"
    );
}

/// `man -l -` renders barrage-load(1); its text lists the load options with their help and
/// defaults, and the exit statuses.
#[test]
fn the_man_page_renders_with_the_load_options() {
    let roff = barrage(&["man", "load"]);
    assert!(roff.contains(".TH barrage-load 1"), "{}", &roff[..200]);
    let mut man = Command::new("man")
        .args(["-l", "-"])
        .env("MANPAGER", "cat")
        .env("LC_ALL", "C")
        .env("MANWIDTH", "100")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("man (man-db) is installed: scripts/test installs it");
    man.stdin
        .take()
        .unwrap()
        .write_all(roff.as_bytes())
        .unwrap();
    let out = man.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = plain(&String::from_utf8_lossy(&out.stdout));
    for want in [
        "barrage-load",
        "-c, --connections",
        "Connections to keep open",
        "[default: 10]",
        "--http3",
        "--no-keepalive",
        "--timeout",
        "[default: 10s]",
        "EXIT STATUS",
        "a --threshold failed",
    ] {
        assert!(text.contains(want), "man page lacks {want:?}:\n{text}");
    }
    let top = barrage(&["man"]);
    assert!(top.contains("completions") && top.contains("load"));
}

#[test]
fn help_ends_with_the_exit_statuses() {
    let help = barrage(&["load", "--help"]);
    let tail = &help[help.find("Exit status:").expect("an exit status section")..];
    for code in ["0 ", "1 ", "2 ", "99 ", "130 "] {
        assert!(tail.contains(&format!("\n  {code}")), "{tail}");
    }
    assert!(barrage(&["run", "--help"]).contains("Exit status:"));
}

/// Man's text without overstrike (bold, underline) and with plain hyphens.
fn plain(s: &str) -> String {
    let mut out: Vec<char> = Vec::new();
    for c in s.chars() {
        match c {
            '\u{8}' => {
                out.pop();
            }
            '\u{2010}' | '\u{2212}' => out.push('-'),
            c => out.push(c),
        }
    }
    out.into_iter().collect()
}
