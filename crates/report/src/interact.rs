//! The HTML report's one script: hover read-outs (each line's value at the nearest x, with its
//! unit, and a crosshair) on every line chart, and drag-to-zoom (double-click resets) on
//! timelines. It is inline, fetches nothing, and only enhances: every value is in the SVG and
//! its tables without it. Its source is `interact.js`, kept apart so it reads as JavaScript.

/// The `<script>` element the page carries once, at the end of its body (the script looks for
/// the charts when it runs, so they must come before it).
pub fn script() -> &'static str {
    concat!("<script>\n", include_str!("interact.js"), "</script>\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_inline_script_that_fetches_nothing() {
        let s = script();
        assert_eq!(s.matches("<script").count(), 1);
        // The HTML parser ends the element at the first "</script": only the closing tag may.
        assert_eq!(s.find("</script"), Some(s.len() - "</script>\n".len()));
        for bad in [
            "src=",
            "href",
            "http:",
            "https:",
            "fetch(",
            "XMLHttpRequest",
            "import",
        ] {
            assert!(!s.contains(bad), "the script must fetch nothing: {bad}");
        }
        assert!(
            s.lines().count() < 150,
            "keep the script small: {} lines",
            s.lines().count()
        );
    }
}
