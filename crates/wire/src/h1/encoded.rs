//! The run's HTTP/1.1 requests, encoded once before the run, in the order they go out, so that
//! a connection writes any `k` consecutive requests (a pipelined batch) as one slice of one
//! buffer: no per-request encoding or copying, whatever the number of targets.

use crate::client::Order;

/// Requests laid out at the positions of the run's [`Order`] (one round, then its first
/// `depth - 1` again), so a batch of up to `depth` starting anywhere in the round is contiguous.
#[derive(Debug, Clone)]
pub struct Encoded {
    bytes: Vec<u8>,
    /// Start of each position in `bytes`, then the end of the last.
    offsets: Vec<usize>,
}

impl Encoded {
    /// `requests[i]` is request i's bytes; `order` says which request is at each position.
    pub fn new(requests: &[Vec<u8>], order: &Order) -> Encoded {
        let seq = order.seq();
        let total: usize = seq.iter().map(|&r| requests[r as usize].len()).sum();
        let mut bytes = Vec::with_capacity(total);
        let mut offsets = Vec::with_capacity(seq.len() + 1);
        for &r in seq {
            offsets.push(bytes.len());
            bytes.extend_from_slice(&requests[r as usize]);
        }
        offsets.push(bytes.len());
        Encoded { bytes, offsets }
    }

    /// Where the `k` requests from position `pos` lie in [`Encoded::bytes`] (`pos < round`,
    /// `k <= depth`).
    pub fn span(&self, pos: usize, k: usize) -> (usize, usize) {
        (self.offsets[pos], self.offsets[pos + k])
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_batch_is_the_requests_in_order() {
        let reqs: Vec<Vec<u8>> = vec![b"A".to_vec(), b"bb".to_vec(), b"CCC".to_vec()];
        for order in [vec![0u32], vec![0, 1, 2], vec![2, 0, 1], vec![1, 1, 0]] {
            for depth in 1..=7 {
                let o = Order::new(&order, depth);
                let e = Encoded::new(&reqs, &o);
                assert_eq!(o.round(), order.len());
                for pos in 0..order.len() {
                    for k in 1..=depth {
                        let (a, b) = e.span(pos, k);
                        let want: Vec<u8> = (pos..pos + k)
                            .flat_map(|p| reqs[order[p % order.len()] as usize].clone())
                            .collect();
                        assert_eq!(&e.bytes()[a..b], &want[..], "{order:?} d={depth} {pos}+{k}");
                        for j in 0..k {
                            assert_eq!(o.request_at(pos + j), order[(pos + j) % order.len()]);
                        }
                    }
                }
            }
        }
    }
}
