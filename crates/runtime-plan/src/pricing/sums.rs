//! The plan's sums of amounts, bit for bit as `Decimal` adds them, without its general
//! addition where its rule is plain (sixth pass: additions were a third of pricing).

use runway_schema::Money;
use rust_decimal::Decimal;

/// `Σ count × amount` of `terms`, exactly as adding each amount `count` times in any order gives
/// it: `Decimal` adds two nonzero positive amounts exactly at the larger scale while the sum
/// fits 96 bits, and a zero added leaves the other operand. `Some(None)` when every term is
/// zero (which zero `Decimal` keeps depends on the order); `None` when a term is negative or a
/// product or sum at the largest scale passes 96 bits (where `Decimal` would round).
pub(super) fn exact_sum(terms: impl Iterator<Item = (Money, u64)>) -> Option<Option<Money>> {
    let (mut sum, mut scale, mut any) = (0u128, 0u32, false);
    for (amount, count) in terms {
        let d = amount.0;
        if count == 0 || d.is_zero() {
            continue;
        }
        let mantissa = u128::try_from(d.mantissa()).ok()?;
        let term = mantissa.checked_mul(u128::from(count))?;
        let s = d.scale();
        if s > scale {
            sum = sum.checked_mul(10u128.checked_pow(s - scale)?)?;
            scale = s;
        }
        sum = sum.checked_add(term.checked_mul(10u128.checked_pow(scale - s)?)?)?;
        if sum >= 1 << 96 {
            return None;
        }
        any = true;
    }
    // Under 2^96: lo, mid and hi; the casts keep each word's 32 bits.
    #[allow(clippy::cast_possible_truncation)]
    let (lo, mid, hi) = (sum as u32, (sum >> 32) as u32, (sum >> 64) as u32);
    Some(any.then(|| Money(Decimal::from_parts(lo, mid, hi, false, scale))))
}

/// `a + b`, bit for bit (value, scale and sign), without `Decimal`'s general addition where it
/// is plain: a zero added leaves the other operand as it is (as `Decimal` does), and two
/// positive amounts with mantissas under 2^64 whose sum at the larger scale fits 96 bits are
/// that sum at that scale (as `Decimal` makes it); anything else (a negative amount, a mantissa
/// of 64 bits or more, a larger sum) is `Decimal`'s own. Planning adds about 35,000 amounts a plan at N = 1,000 (sixth pass).
#[inline]
pub(crate) fn add(a: Money, b: Money) -> Money {
    /// 10^0 ..= 10^28 (a `Decimal`'s scales): looked up, not raised per addition.
    const POWERS_OF_TEN: [u128; 29] = {
        let mut powers = [1u128; 29];
        let mut k = 1;
        while k < 29 {
            powers[k] = powers[k - 1] * 10;
            k += 1;
        }
        powers
    };
    let (x, y) = (a.0, b.0);
    if x.is_zero() {
        return b;
    }
    if y.is_zero() {
        return a;
    }
    // Both positive, mantissas under 2^64 (the casts below are then exact).
    let (m, n) = (x.mantissa(), y.mantissa());
    if (0..1 << 64).contains(&m) && (0..1 << 64).contains(&n) {
        let (s, t) = (x.scale(), y.scale());
        // The smaller scale's mantissa times ten to the scales' difference (`None` past 128
        // bits, which is past 96 anyway).
        #[allow(clippy::cast_sign_loss)]
        let (m, n) = (m as u128, n as u128);
        let ten_to = |k: u32| POWERS_OF_TEN[k as usize];
        let sum = if s >= t {
            n.checked_mul(ten_to(s - t)).and_then(|n| n.checked_add(m))
        } else {
            m.checked_mul(ten_to(t - s)).and_then(|m| m.checked_add(n))
        };
        if let Some(sum) = sum
            && sum < 1 << 96
        {
            // The casts keep each word's 32 bits.
            #[allow(clippy::cast_possible_truncation)]
            let (lo, mid, hi) = (sum as u32, (sum >> 32) as u32, (sum >> 64) as u32);
            return Money(Decimal::from_parts(lo, mid, hi, false, s.max(t)));
        }
    }
    a + b
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Summed by answer, the figures are what adding them item by item in any order gives, bit
    /// for bit (value and scale), whenever `exact_sum` answers; a sum past 96 bits, or with a
    /// negative term, it leaves to `Decimal`.
    #[test]
    fn sums_by_answer_are_the_item_by_item_sums() {
        // A small deterministic generator (xorshift): amounts of scales 0 to 12, zeros of
        // several scales among them, mantissas up to 2^70, counts 0 to 3.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let (mut exact, mut zero) = (0, 0);
        for round in 0..2_000 {
            let terms: Vec<(Money, u64)> = (0..1 + next() % 6)
                .map(|_| {
                    let scale = u32::try_from(next() % 13).unwrap();
                    let mantissa = match next() % 5 {
                        0 => 0,
                        1 => i128::from(next() % 1000),
                        2 => i128::from(next()),
                        3 => i128::from(next()) << 6,
                        _ => i128::from(next() % 100_000),
                    };
                    let sign = if round % 97 == 0 && next() % 2 == 0 { -1 } else { 1 };
                    (Money(Decimal::from_i128_with_scale(sign * mantissa, scale)), next() % 4)
                })
                .collect();
            // Item by item, in the terms' order and interleaved (each term's items apart).
            let ordered = terms.iter().flat_map(|&(a, n)| (0..n).map(move |_| a));
            let rounds = (0..3u64).flat_map(|i| terms.iter().filter(move |t| t.1 > i).map(|t| t.0));
            for items in [ordered.collect::<Vec<_>>(), rounds.collect()] {
                let Some(by_item) = items.iter().try_fold(Decimal::ZERO, |s, a| s.checked_add(a.0)) else {
                    continue;
                };
                match exact_sum(terms.iter().copied()) {
                    Some(Some(sum)) => {
                        exact += 1;
                        assert_eq!(sum.0.serialize(), by_item.serialize(), "{terms:?}");
                    }
                    Some(None) => {
                        zero += 1;
                        assert!(by_item.is_zero(), "{terms:?}");
                    }
                    None => assert!(
                        terms.iter().any(|t| t.0.0.is_sign_negative() && !t.0.0.is_zero()) || items.len() > 1,
                        "{terms:?}"
                    ),
                }
            }
        }
        assert!(exact > 1_000 && zero > 10, "{exact} exact, {zero} zero");
    }

    /// `add` is `Decimal`'s addition bit for bit: value, scale and sign, zeros of any scale,
    /// carries within and past 96 bits.
    #[test]
    fn add_is_decimals_addition_bit_for_bit() {
        let max = (1i128 << 96) - 1;
        let mantissas = [
            0,
            1,
            5,
            99,
            100,
            4_294_967_295,
            4_294_967_296,
            (1 << 64) - 1,
            1 << 64,
            max / 2,
            max / 2 + 1,
            max - 1,
            max,
        ];
        let mut amounts = Vec::new();
        for &m in &mantissas {
            for scale in [0, 1, 2, 6, 19, 20, 28] {
                amounts.push(Decimal::from_i128_with_scale(m, scale));
                amounts.push(Decimal::from_i128_with_scale(-m, scale));
            }
        }
        for &x in &amounts {
            for &y in &amounts {
                let Some(want) = x.checked_add(y) else { continue };
                assert_eq!(add(Money(x), Money(y)).0.serialize(), want.serialize(), "{x:?} + {y:?}");
            }
        }
    }
}
