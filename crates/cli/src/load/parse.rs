//! Parsing of option values: headers; durations are the model's one grammar.

/// The one duration grammar (`barrage_model::units`), shared with `serve` and study files.
pub use barrage_model::units::parse_duration;

/// `Name: value` (the value may be empty).
pub fn parse_header(s: &str) -> Result<(String, String), String> {
    let (name, value) = s
        .split_once(':')
        .ok_or_else(|| format!("`{s}` is not a header (like 'Accept: text/plain')"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("`{s}` has an empty header name"));
    }
    Ok((name.to_string(), value.trim().to_string()))
}

/// `--h2-window`: a size in the one size grammar, within HTTP/2's window range.
/// `--shard I/N`: shard I (1-based) of N.
pub fn parse_shard(s: &str) -> Result<barrage_model::load::Shard, String> {
    let bad = || format!("{s:?} is not a shard: expected I/N with 1 <= I <= N, e.g. 2/4");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (index, count) = (
        i.trim().parse::<u32>().map_err(|_| bad())?,
        n.trim().parse::<u32>().map_err(|_| bad())?,
    );
    if index == 0 || index > count {
        return Err(bad());
    }
    Ok(barrage_model::load::Shard { index, count })
}

pub fn parse_window(s: &str) -> Result<u32, String> {
    let v = barrage_model::units::parse_size(s)?;
    if (65_535..=(1 << 31) - 1).contains(&v) {
        Ok(v as u32)
    } else {
        Err(format!("{s}: an HTTP/2 window is 65,535 to 2^31-1 bytes"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers() {
        assert_eq!(
            parse_header("Accept:  text/plain "),
            Ok(("Accept".into(), "text/plain".into()))
        );
        assert_eq!(parse_header("X-Empty:"), Ok(("X-Empty".into(), "".into())));
        assert!(parse_header("nocolon").is_err());
        assert!(parse_header(": v").is_err());
    }
}
