//===- SplitKvPlan.h - which CTA processes which KV tiles -------*- C++ -*-===//
//
// The work plan of an attention kernel (docs/AttentionLowering.md, "Work
// split"): the problem is a list of *units* (one sequence, KV head and row
// block each: u = (b * Hkv + h) * rowBlocks + r), each with the KV tiles its
// rows can see, and *partitions* (one CTA, or one cluster for a Dv split)
// take contiguous runs of those tiles. Plain C++: nvfp4-lower-attention
// computes static plans with it, the kernels compute the same plan on the
// device from kv_lens, and the benchmark and the unit tests use it to
// predict what each CTA processes.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_SUPPORT_SPLITKVPLAN_H
#define NVFP4_SUPPORT_SPLITKVPLAN_H

#include <cstdint>
#include <optional>
#include <vector>

namespace nvfp4::plan {

/// What the tile counts of a unit depend on besides its sequence length.
struct UnitShape {
  int64_t seqQ = 1;          ///< Sq
  int64_t queriesPerCta = 1; ///< queries of one row block
  int64_t rowBlocks = 1;     ///< ceil(Sq / queriesPerCta) x headBlocks
  int64_t headBlocks = 1;    ///< row blocks per query block (head blocks)
  /// Query block q holds queries from q x queriesPerCta - queryShift: the
  /// partly filled block is the first (AttentionSchedule::queryShift).
  int64_t queryShift = 0;
  /// Units in head-block-major order (unitOrder).
  bool headBlockMajor = false;
  int64_t headsKv = 1;       ///< Hkv
  int64_t blockKeys = 64;    ///< keys per block, the plan's granule
  bool causal = false;
  std::optional<int64_t> window;
};

/// The KV blocks of one unit (blockKeys keys each; the plan counts work in
/// them): blocks [first, first + count), holding the keys [keyLo, keyHi)
/// some row of the unit sees (docs/AttentionLowering.md, "Masks"). count
/// is 0 when no row sees a key. ("Tiles" below are these blocks.)
struct UnitTiles {
  int64_t first = 0, count = 0, keyLo = 0, keyHi = 0;
};

/// The blocks of row block `rowBlock` of a sequence with `len` keys.
UnitTiles unitTiles(const UnitShape &shape, int64_t len, int64_t rowBlock);

/// Where unit `u` of `batch` sequences sits: its sequence, KV head and row
/// block. The default order is u = (b * Hkv + h) * rowBlocks + r. Head-block
/// major (headBlocks > 1, sm_90a's 128-head Dv split) puts every unit of
/// head block 0 first: u = (hb * B * Hkv + b * Hkv + h) * qBlocks + qb,
/// with r = qb * headBlocks + hb, so that when a partition takes several
/// whole units, the two head blocks of a sequence (the same keys) run on
/// two CTAs at the same time rather than one after the other on one, and
/// the second read of the keys hits the L2 (docs/AttentionLowering.md,
/// "Unit order").
struct UnitIndex {
  int64_t batch = 0, kvHead = 0, rowBlock = 0;
};
UnitIndex unitOrder(const UnitShape &shape, int64_t batch, int64_t u);

/// Tile counts of every unit u (unitOrder) for the sequence lengths `lens`
/// (one per sequence).
std::vector<int64_t> unitTileCounts(const UnitShape &shape,
                                    const std::vector<int64_t> &lens);

/// The tiles one partition processes: units uFirst..uLast (inclusive), the
/// first from local tile t0, the last up to (not including) local tile t1,
/// the others whole. Empty when uFirst > uLast.
struct Partition {
  int64_t uFirst = 1, t0 = 0, uLast = 0, t1 = 0;
  bool empty() const { return uFirst > uLast; }
};

/// The share S of the balanced plan with whole units: when every unit has
/// the same slots (`even`, unitSlots each) and ceil(units / partitions)
/// whole units per partition cost at most min(kWholeUnitsSlack, S / 8)
/// slots more than `share`, that many units' slots, so that no unit is
/// split (no partial result, nothing for the combine to merge, one piece
/// start fewer); otherwise `share`. On the H100, DeepSeek-V4's 128-head
/// decode at B 128 (S 33 against 34 whole) ran 1.12x faster whole
/// (docs/Hopper.md, "Whole units").
int64_t wholeUnitsShare(int64_t share, bool even, int64_t units,
                        int64_t unitSlots, int64_t partitions);
constexpr int64_t kWholeUnitsSlack = 4;

/// The balanced plan: unit u occupies o slots (the cost of a piece beyond
/// its tiles) followed by one slot per tile (at least one slot: an empty
/// unit with o = 0 takes one), units one after the other; partition p
/// takes the slots [p S, (p + 1) S) with S = max(ceil(total / partitions),
/// minSlots): when there are few tiles for many partitions, each takes
/// minSlots slots (the last one the rest, the partitions past the last
/// slot nothing; minPieceSlots below), so that pieces are not cut into
/// single tiles (a unit's head or tail in a partition may still be
/// shorter); S is then rounded up to whole units when that is cheap
/// (wholeUnitsShare). A
/// partition processes a unit when it owns one of the unit's tile slots,
/// or, for a unit without tiles, the unit's first slot (so that somebody
/// writes its empty result). Every tile goes to exactly one partition, and
/// a partition's units are consecutive. o is the given overhead, capped at
/// an eighth of a partition's share of the tiles (effectiveOverhead): when
/// the shares are a few tiles, whole-tile overhead slots would leave
/// partitions idle.
struct BalancedPlan {
  int64_t overhead = 1;     ///< o, after effectiveOverhead
  int64_t total = 0;        ///< slots of all units
  int64_t perPartition = 1; ///< S
  std::vector<Partition> parts;
};

/// The overhead a balanced plan uses: min(overhead, ceil(tiles /
/// partitions) / 8).
int64_t effectiveOverhead(int64_t overhead, int64_t tiles, int64_t partitions);

/// The slots of a unit with `tiles` tiles: max(1, tiles + overhead).
int64_t unitSlots(int64_t tiles, int64_t overhead);

/// The balanced plan of units with `tiles` over `partitions` partitions
/// (overhead >= 0, partitions >= 1, minSlots >= 1).
BalancedPlan balancedPlan(const std::vector<int64_t> &tiles, int64_t overhead,
                          int64_t partitions, int64_t minSlots = 1);

/// The plan of `copies` blocks of units that read the same keys (sm_90a's
/// head blocks, numbered head block first: block c is units [c U', (c + 1)
/// U') and has block 0's tiles) over partitions in `copies` groups of P':
/// `block0` is the plan of block 0's units over P' partitions, and
/// partition c P' + p takes what partition p takes there, in block c. The
/// CTAs of one head block's pieces of a sequence then run at the same time
/// on the same keys, and all but the first read them from the L2; the
/// balanced plan over all the units offsets the groups by up to P' slots,
/// enough that the second read comes from DRAM (docs/AttentionLowering.md,
/// "Unit order"). Same share S as the balanced plan over all units when P
/// and U are multiples of `copies`.
BalancedPlan mirroredPlan(const BalancedPlan &block0, int64_t copies,
                          int64_t unitsPerCopy);

/// A static plan of whole units in an order of its own, for units that
/// share keys (the row blocks of one sequence and KV head in a prefill):
/// the balanced plan's consecutive slot ranges would have every partition
/// on another sequence's keys at once (a causal prefill of 64 sequence-
/// heads of 2 MiB of K and V each: 128 MiB against a 50 MiB L2, so each
/// row block reads its keys from DRAM again). Here the units are taken in
/// groups of `kvsPerGroup` key sets (kvOf[u] names unit u's; the last
/// groups merged until the last holds 2 x partitions units, so that its
/// short units even out the end), within a group longest first (ties in
/// unit order), and each goes to the partition with
/// the least work so far (slots max(1, tiles + overhead); ties to the
/// lowest partition): the units running at one time are a window of that
/// order, a few key sets. `order` lists the units partition by partition
/// (plan position -> unit), partition p's from starts[p] to starts[p + 1];
/// `busiest` is the most slots any partition gets
/// (docs/AttentionLowering.md, "Unit order").
struct LocalOrder {
  std::vector<int64_t> order, starts;
  int64_t busiest = 0;
};
LocalOrder localOrder(const std::vector<int64_t> &tiles,
                      const std::vector<int64_t> &kvOf, int64_t kvsPerGroup,
                      int64_t overhead, int64_t partitions);

/// The plan of `local` as a balanced plan over its order: each partition's
/// units whole (t0 = 0, t1 = the last unit's tiles), perPartition the
/// busiest; `tiles` in unit order. Its uFirst / uLast are plan positions
/// (local.order[u] is the unit): pieceOf and the other helpers that take
/// tiles by unit need tiles in plan order for it.
BalancedPlan localPlan(const LocalOrder &local,
                       const std::vector<int64_t> &tiles, int64_t overhead);

/// The smallest share S of a partition, in granules of `granuleKeys` keys:
/// ceil(minPieceKeys / granuleKeys), at least 1 (minPieceKeys in [0,
/// kMaxMinPieceKeys]). A piece pays a fixed
/// cost (Q's load, its partial result's write and the combine's read of
/// it) that a piece of a few keys does not amortize (docs/Hopper.md,
/// "The shortest piece").
int64_t minPieceSlots(int64_t minPieceKeys, int64_t granuleKeys);

/// The default of nvfp4-lower-attention's min-piece-keys, and its largest
/// value (2^30: the plan's slot counts stay in i32).
constexpr int64_t kDefaultMinPieceKeys = 256;
constexpr int64_t kMaxMinPieceKeys = int64_t(1) << 30;

/// The most pieces of a unit an sm_90a cluster merges (a portable cluster
/// of 8 CTAs): the default and the largest value of nvfp4-lower-attention's
/// cluster-merge (docs/Hopper.md, "The cluster merge").
constexpr int64_t kMaxClusterMerge = 8;

/// The local tile range [t0, t1) of unit `u` in partition `p` of `plan`
/// ({0, 0} when p does not process u).
std::pair<int64_t, int64_t> pieceOf(const BalancedPlan &plan,
                                    const std::vector<int64_t> &tiles,
                                    int64_t p, int64_t u);

/// Whether a plan over the finer of two granules (`fineTotal` blocks in all
/// against `coarseTotal` tiles) fills the partitions enough better to be
/// worth its cost (a tile split between two pieces is multiplied by both):
/// when the bound on the fill, T / (P ceil(T / P)), is higher by at least
/// 1/16.
bool preferFineGranule(int64_t coarseTotal, int64_t fineTotal,
                       int64_t partitions);

/// Tiles processed by each partition of `plan`.
std::vector<int64_t> tilesPerPartition(const BalancedPlan &plan,
                                       const std::vector<int64_t> &tiles);

/// Pieces (partial results) unit u's tiles are split into under `plan`:
/// 1 when one partition processes it whole.
int64_t piecesOf(const BalancedPlan &plan, const std::vector<int64_t> &tiles,
                 int64_t u);

/// The units that more than one partition processes (piecesOf > 1), in
/// order: those whose partial results the combine kernel merges. Their
/// count is below the partitions' (a partition boundary splits at most one
/// unit).
std::vector<int64_t> splitUnits(const BalancedPlan &plan);

/// SM fill of a run: total tiles processed / (SMs x tiles of the busiest
/// CTA); `perCta` lists the tiles of every CTA that processed any, and a CTA
/// pair of a Dv split counts as two CTAs with the same tiles.
double smFill(const std::vector<int64_t> &perCta, int64_t sms);

} // namespace nvfp4::plan

#endif // NVFP4_SUPPORT_SPLITKVPLAN_H
