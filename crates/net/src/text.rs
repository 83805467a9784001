//! Showing text a user typed when it holds characters nobody can see.
//!
//! A byte-order mark at the start of a file, or a zero-width or no-break space pasted from a
//! document, makes a header or a number look right on screen and still fail to parse. Error
//! messages therefore spell such characters out as `<U+XXXX>` and say what they are.

/// Characters shown by their code point: controls, the no-break and zero-width spaces, the
/// other typographic spaces and joiners, and the byte-order mark.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{00a0}' | '\u{00ad}' | '\u{180e}' | '\u{2000}'..='\u{200f}'
            | '\u{2028}'..='\u{202f}' | '\u{205f}'..='\u{206f}' | '\u{3000}' | '\u{feff}')
}

/// `None` if every character of `text` is visible; otherwise `text` with each hidden one
/// written `<U+XXXX>`, and a sentence saying what they are.
pub fn visible(text: &str) -> Option<(String, &'static str)> {
    if !text.chars().any(hidden) {
        return None;
    }
    let shown = text
        .chars()
        .map(|c| {
            if hidden(c) {
                format!("<U+{:04X}>", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect();
    let what = if text.starts_with('\u{feff}') {
        "U+FEFF is a byte-order mark: save the file as UTF-8 without BOM"
    } else {
        "characters shown as <U+XXXX> are invisible (zero-width, no-break or control): \
         retype the value"
    };
    Some((shown, what))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_left_alone_and_hidden_characters_are_named() {
        assert_eq!(visible("10Mbps"), None);
        let (shown, what) = visible("\u{feff}time_s").unwrap();
        assert_eq!(shown, "<U+FEFF>time_s");
        assert!(what.contains("byte-order mark"));
        let (shown, what) = visible("1\u{200b}0\u{a0}").unwrap();
        assert_eq!(shown, "1<U+200B>0<U+00A0>");
        assert!(what.contains("invisible"));
    }
}
