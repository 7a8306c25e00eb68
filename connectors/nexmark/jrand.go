package nexmark

// splitRand is the arithmetic of Java's java.util.SplittableRandom (the
// same in every JDK since 8), which the public generator draws all its
// random values from: a 64-bit counter advanced by an odd gamma per draw
// and mixed. Its whole state is the counter (gamma never changes), which
// is what a checkpoint stores.
type splitRand struct {
	seed, gamma uint64
}

// goldenGamma is SplittableRandom's GOLDEN_GAMMA.
const goldenGamma = 0x9e3779b97f4a7c15

// defaultRand returns the generator that Java's no-argument constructor
// makes when the JVM-wide default sequence (SplittableRandom.defaultGen)
// stands at s.
func defaultRand(s uint64) splitRand {
	return splitRand{seed: mix64(s), gamma: mixGamma(s + goldenGamma)}
}

func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func mix32(z uint64) int32 {
	z = (z ^ (z >> 33)) * 0x62a9d9ed799705f5
	return int32(((z ^ (z >> 28)) * 0xcb24d0a5c88c35b3) >> 32)
}

func mixGamma(z uint64) uint64 {
	z = (z ^ (z >> 33)) * 0xff51afd7ed558ccd
	z = (z ^ (z >> 33)) * 0xc4ceb9fe1a85ec53
	z = (z ^ (z >> 33)) | 1
	if n := popcount(z ^ (z >> 1)); n < 24 {
		z ^= 0xaaaaaaaaaaaaaaaa
	}
	return z
}

func popcount(x uint64) int {
	n := 0
	for x != 0 {
		x &= x - 1
		n++
	}
	return n
}

func (r *splitRand) nextSeed() uint64 {
	r.seed += r.gamma
	return r.seed
}

// int32 is nextInt().
func (r *splitRand) int32() int32 { return mix32(r.nextSeed()) }

// int64 is nextLong().
func (r *splitRand) int64() int64 { return int64(mix64(r.nextSeed())) }

// intn is nextInt(bound) for bound >= 1: Java's rejection of
// over-represented candidates, in 32-bit arithmetic.
func (r *splitRand) intn(bound int32) int32 {
	v := r.int32()
	m := bound - 1
	if bound&m == 0 {
		return v & m
	}
	for u := int32(uint32(v) >> 1); ; u = int32(uint32(r.int32()) >> 1) {
		v = u % bound
		if u+m-v >= 0 {
			return v
		}
	}
}

// float64 is nextDouble(): 53 random bits as a number in [0, 1).
func (r *splitRand) float64() float64 {
	return float64(uint64(r.int64())>>11) * (1.0 / (1 << 53))
}

// longn is the generator's LongGenerator.nextLong(n) for n >= 1: nextInt
// below Integer.MAX_VALUE, else the (skewed) |nextLong() % n|.
func (r *splitRand) longn(n int64) int64 {
	if n < 1<<31-1 {
		return int64(r.intn(int32(n)))
	}
	v := r.int64() % n
	if v < 0 {
		v = -v
	}
	return v
}
