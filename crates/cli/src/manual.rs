//! What ripgrep and hyperfine ship beside the binary, made from the same clap command as the
//! arguments themselves (so from the load options' declaration): `barrage completions SHELL`
//! (clap_complete) and `barrage man [COMMAND]` (clap_mangen: roff on stdout).

use anyhow::Context;
use clap::Command;
use std::io::Write;
use std::process::ExitCode;

/// The completion script of `shell` for `cmd` on stdout.
pub fn completions(mut cmd: Command, shell: clap_complete::Shell) -> anyhow::Result<ExitCode> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "barrage", &mut out);
    std::io::stdout()
        .write_all(&out)
        .context("cannot write the completions")?;
    Ok(ExitCode::SUCCESS)
}

/// The man page of barrage, or of one of its commands (`barrage-load(1)`), on stdout: its
/// options with their help and defaults, and its exit statuses.
pub fn man(
    mut cmd: Command,
    command: Option<&str>,
    exits: &[(&str, &[(u8, &str)])],
) -> anyhow::Result<ExitCode> {
    cmd.build();
    let (page, codes) = match command {
        None => (cmd, None),
        Some(name) => {
            let sub = cmd
                .find_subcommand(name)
                .with_context(|| format!("no command {name:?} (see barrage --help)"))?
                .clone();
            let codes = exits.iter().find(|(n, _)| *n == name).map(|(_, c)| *c);
            (sub.name(format!("barrage-{name}")), codes)
        }
    };
    let (args, subs) = (
        page.get_arguments().any(|a| !a.is_hide_set()),
        page.get_subcommands().any(|c| !c.is_hide_set()),
    );
    let mut out = Vec::new();
    // The sections one by one, so that the exit statuses (the after_help of `--help`) come as
    // an EXIT STATUS section of their own before VERSION.
    let man = clap_mangen::Man::new(page);
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    if args {
        man.render_options_section(&mut out)?;
    }
    if subs {
        man.render_subcommands_section(&mut out)?;
    }
    if let Some(codes) = codes {
        out.extend_from_slice(b".SH \"EXIT STATUS\"\n");
        for (code, what) in codes {
            out.extend_from_slice(format!(".TP\n{code}\n{}\n", roff_text(what)).as_bytes());
        }
    }
    man.render_version_section(&mut out)?;
    std::io::stdout()
        .write_all(&out)
        .context("cannot write the man page")?;
    Ok(ExitCode::SUCCESS)
}

/// Text safe in a roff paragraph: backslashes escaped, no line starting with a control dot.
fn roff_text(s: &str) -> String {
    let s = s.replace('\\', "\\e").replace('-', "\\-");
    if s.starts_with('.') || s.starts_with('\'') {
        format!("\\&{s}")
    } else {
        s
    }
}
