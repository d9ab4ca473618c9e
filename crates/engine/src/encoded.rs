//! The run's HTTP/1.1 requests, encoded once before the run, in the order they go out, so that
//! a worker writes any `k` consecutive requests (a pipelined batch) as one slice of one buffer:
//! no per-request encoding or copying, whatever the number of targets.

/// Requests laid out in sending order. The order (one round) is followed by its first
/// `depth - 1` requests again, so a batch of up to `depth` starting anywhere in the round is
/// contiguous.
#[derive(Debug, Clone)]
pub struct Encoded {
    bytes: Vec<u8>,
    /// Start of each position in `bytes`, then the end of the last.
    offsets: Vec<usize>,
    /// The request (an index into the run's requests) at each position.
    seq: Vec<u32>,
    /// Positions in one round.
    round: usize,
}

impl Encoded {
    /// `requests[i]` is request i's bytes; `order` is one round of request indices (not
    /// empty); `depth` the largest batch (at least 1).
    pub fn new(requests: &[Vec<u8>], order: &[u32], depth: usize) -> Encoded {
        assert!(!order.is_empty() && depth >= 1, "a round and a batch");
        let positions = order.len() + depth - 1;
        let seq: Vec<u32> = (0..positions).map(|p| order[p % order.len()]).collect();
        let total: usize = seq.iter().map(|&r| requests[r as usize].len()).sum();
        let mut bytes = Vec::with_capacity(total);
        let mut offsets = Vec::with_capacity(positions + 1);
        for &r in &seq {
            offsets.push(bytes.len());
            bytes.extend_from_slice(&requests[r as usize]);
        }
        offsets.push(bytes.len());
        Encoded {
            bytes,
            offsets,
            seq,
            round: order.len(),
        }
    }

    /// Positions in one round: a worker's cursor stays below this.
    pub fn round(&self) -> usize {
        self.round
    }

    /// The request at position `pos` (below `round + depth - 1`).
    pub fn request_at(&self, pos: usize) -> u32 {
        self.seq[pos]
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
                let e = Encoded::new(&reqs, &order, depth);
                assert_eq!(e.round(), order.len());
                for pos in 0..order.len() {
                    for k in 1..=depth {
                        let (a, b) = e.span(pos, k);
                        let want: Vec<u8> = (pos..pos + k)
                            .flat_map(|p| reqs[order[p % order.len()] as usize].clone())
                            .collect();
                        assert_eq!(&e.bytes()[a..b], &want[..], "{order:?} d={depth} {pos}+{k}");
                        for j in 0..k {
                            assert_eq!(e.request_at(pos + j), order[(pos + j) % order.len()]);
                        }
                    }
                }
            }
        }
    }
}
