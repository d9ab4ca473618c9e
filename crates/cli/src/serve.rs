//! `barrage serve` (being written).

use std::process::ExitCode;

#[derive(clap::Args, Default)]
pub struct Args {}

pub fn main(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("barrage serve is not built yet")
}
