//! The grammar of a question's claim: `LEFT OP RIGHT[, RIGHT...] [within P%]`, a side being
//! `contender` or `contender[k=v k=v]` (conditions of its own over the question's `at`).

/// What the claim says of the left side's figure against the right's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Op {
    /// Higher (`>`).
    Greater,
    /// Lower (`<`).
    Less,
    /// Within a margin either way (`~ ... within 5%`: the ratio between 1/1.05 and 1.05).
    Equivalent { margin: f64 },
}

impl Op {
    /// The operator as written.
    pub fn symbol(&self) -> &'static str {
        match self {
            Op::Greater => ">",
            Op::Less => "<",
            Op::Equivalent { .. } => "~",
        }
    }
}

/// A side of a claim: a contender, at the question's point with these conditions laid over it.
#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    pub contender: String,
    pub at: Vec<(String, String)>,
}

impl Side {
    /// The side as a label names it ("node-botkit", "node-botkit[cpus=1]").
    pub fn label(&self) -> String {
        if self.at.is_empty() {
            return self.contender.clone();
        }
        let c: Vec<String> = self.at.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{}[{}]", self.contender, c.join(" "))
    }
}

/// A parsed claim.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    pub left: Side,
    pub op: Op,
    /// One side, or several: the left against each (all must hold).
    pub right: Vec<Side>,
}

/// `k=v` conditions, separated by spaces (or commas).
pub fn conditions(s: &str) -> Result<Vec<(String, String)>, String> {
    let mut out: Vec<(String, String)> = Vec::new();
    for item in s.split(|c: char| c.is_whitespace() || c == ',') {
        if item.is_empty() {
            continue;
        }
        let Some((k, v)) = item.split_once('=') else {
            return Err(format!(
                "{item:?} is not a condition: conditions are k=v (\"c=50\")"
            ));
        };
        let (k, v) = (k.trim(), v.trim());
        if k.is_empty() || v.is_empty() {
            return Err(format!(
                "{item:?} is not a condition: conditions are k=v (\"c=50\")"
            ));
        }
        if out.iter().any(|(o, _)| o == k) {
            return Err(format!("{k} is given twice in {s:?}"));
        }
        out.push((k.to_string(), v.to_string()));
    }
    Ok(out)
}

fn side(s: &str) -> Result<Side, String> {
    let s = s.trim();
    let (name, at) = match s.split_once('[') {
        Some((n, rest)) => {
            let Some(inner) = rest.strip_suffix(']') else {
                return Err(format!("{s:?}: a side's conditions end with ']'"));
            };
            (n.trim(), conditions(inner)?)
        }
        None => (s, Vec::new()),
    };
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(format!(
            "{s:?} is not a side: a contender's name, then its own conditions in [k=v]"
        ));
    }
    Ok(Side {
        contender: name.to_string(),
        at,
    })
}

fn margin(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let bad = || format!("within {t:?}: a margin is a percentage (\"5%\")");
    let p = t.strip_suffix('%').ok_or_else(bad)?;
    let v: f64 = p.trim().parse().map_err(|_| bad())?;
    if !(v > 0.0 && v < 100.0) {
        return Err(bad());
    }
    Ok(v / 100.0)
}

/// `s` cut at the commas outside brackets (a side's own conditions may hold commas).
fn top_level_commas(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// Parses a claim.
pub fn parse(text: &str) -> Result<Claim, String> {
    let usage = "a claim is \"A > B\", \"A < B\" or \"A ~ B within 5%\" (B may be a list: \
                 \"A < B, C\")";
    let t = text.trim();
    let pos = t
        .find(['>', '<', '~'])
        .ok_or_else(|| format!("claim {t:?}: {usage}"))?;
    let (l, rest) = t.split_at(pos);
    let sym = rest.as_bytes()[0];
    let rest = &rest[1..];
    if rest.contains(['>', '<', '~']) {
        return Err(format!("claim {t:?} has more than one operator: {usage}"));
    }
    let (rhs, op) = match sym {
        b'~' => {
            let Some((r, m)) = rest.split_once(" within ") else {
                return Err(format!(
                    "claim {t:?}: an equivalence says its margin (\"A ~ B within 5%\")"
                ));
            };
            (r, Op::Equivalent { margin: margin(m)? })
        }
        b'>' => (rest, Op::Greater),
        _ => (rest, Op::Less),
    };
    if matches!(op, Op::Greater | Op::Less) && rhs.contains(" within ") {
        return Err(format!(
            "claim {t:?}: only an equivalence (~) takes a margin"
        ));
    }
    let left = side(l)?;
    let right = top_level_commas(rhs)
        .into_iter()
        .map(side)
        .collect::<Result<Vec<_>, String>>()?;
    if right.contains(&left) {
        return Err(format!("claim {t:?} compares a side with itself"));
    }
    Ok(Claim { left, op, right })
}
