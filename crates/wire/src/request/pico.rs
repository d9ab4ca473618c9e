//! picohttpparser (h2o's C parser, through `picohttpparser-sys`) as a request tokeniser.
//!
//! `phr_parse_request` parses the whole head again on every call (the `last_len` shortcut is not
//! used: the server, like with httparse, hands over the buffer from the head's first byte) and
//! returns pointers into the buffer, which become sub-slices again. Its header array lives on
//! the stack and is left uninitialised; the C side writes the entries it reports.

use super::line::{header_name, leading_crlfs, request_line, trim_value};
use super::{written, Step, Tokens};
use crate::{WireError, MAX_HEADERS};
use picohttpparser_sys::{phr_header, phr_parse_request};
use std::ffi::{c_char, c_int};
use std::mem::MaybeUninit;

/// Splits the head at the start of `buf` with picohttpparser.
pub(super) fn tokens<'h, 'b>(
    buf: &'b [u8],
    slots: &'h mut [MaybeUninit<httparse::Header<'b>>],
) -> Result<Step<'h, 'b>, WireError> {
    let skip = leading_crlfs(buf);
    let head = &buf[skip..];
    if head.is_empty() {
        return Ok(Step::Partial);
    }
    let mut raw = [const { MaybeUninit::<phr_header>::uninit() }; MAX_HEADERS];
    let cap = slots.len().min(MAX_HEADERS);
    let mut method: *const c_char = std::ptr::null();
    let mut path: *const c_char = std::ptr::null();
    let (mut method_len, mut path_len, mut minor, mut num) = (0usize, 0usize, -1 as c_int, cap);
    // SAFETY: every pointer refers to a live local or into `head`, which outlives the call;
    // `num` is at most the capacity of `raw`, and picohttpparser writes no further.
    let ret = unsafe {
        phr_parse_request(
            head.as_ptr().cast(),
            head.len(),
            &mut method,
            &mut method_len,
            &mut path,
            &mut path_len,
            &mut minor,
            raw.as_mut_ptr().cast(),
            &mut num,
            0,
        )
    };
    match ret {
        -2 => return Ok(Step::Partial),
        // picohttpparser refuses a header line beyond its array with the same -1 as any other
        // error; a full array tells them apart (httparse says "too many" at the same line).
        -1 if num == cap => return Err(WireError::TooManyHeaders { max: MAX_HEADERS }),
        r if r < 0 => return Err(WireError::Head("malformed request head")),
        _ => {}
    }
    let offset = |p: *const c_char| (p as usize).wrapping_sub(head.as_ptr() as usize);
    if offset(method) != 0 {
        // picohttpparser skips one empty line, which can only be a bare LF here.
        return Err(WireError::Head("bare LF line ending"));
    }
    let (method, target, version_minor) = request_line(head, method_len, (offset(path), path_len))?;
    let at = |p: *const c_char, len: usize| -> Result<&'b [u8], WireError> {
        let start = offset(p);
        head.get(start..start.wrapping_add(len))
            .ok_or(WireError::Head("malformed request head"))
    };
    for (slot, h) in slots.iter_mut().zip(&raw[..num.min(cap)]) {
        // SAFETY: picohttpparser wrote the first `num` entries.
        let h = unsafe { h.assume_init() };
        if h.name.is_null() {
            // A continuation line (obsolete folding): httparse refuses its leading space as a
            // header name.
            return Err(WireError::Head("invalid header name"));
        }
        *slot = MaybeUninit::new(httparse::Header {
            name: header_name(at(h.name, h.name_len)?)?,
            value: trim_value(at(h.value, h.value_len)?),
        });
    }
    Ok(Step::Complete(Tokens {
        method,
        target,
        version_minor,
        // SAFETY: the loop wrote the first `num` slots (num <= cap <= slots.len()).
        headers: unsafe { written(slots, num) },
        head_len: skip + ret as usize,
    }))
}
