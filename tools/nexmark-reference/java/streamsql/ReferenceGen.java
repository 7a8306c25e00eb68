package streamsql;

import com.github.nexmark.flink.NexmarkConfiguration;
import com.github.nexmark.flink.generator.GeneratorConfig;
import com.github.nexmark.flink.source.NexmarkSource;
import com.github.nexmark.flink.source.NexmarkTableSource;

import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.FactoryUtil;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes connectors/nexmark/testdata/reference/*.txt: the first events of
 * the public Nexmark generator for a few configurations, produced by its
 * own Flink connector code (java/upstream, unchanged) as a Flink job would
 * run it: the table factory turns the options into the generator's
 * configuration, the source splits it into one split per parallel
 * generator, and one source reader per split polls rows, which the
 * connector's RowDataEventDeserializer builds.
 *
 * <p>The public generator draws its random values from SplittableRandom
 * instances made with the no-argument constructor, which takes them from
 * a JVM-wide sequence seeded from the clock. To make a run reproducible,
 * this program sets that sequence (SplittableRandom.defaultGen, through
 * reflection: run with --add-opens java.base/java.util=ALL-UNNAMED) to
 * the case's seed before the generator's classes are initialised, then
 * initialises StringsGenerator, then BidGenerator, then opens the readers
 * of splits 0, 1, ... in order: each takes the next value of the
 * sequence. connectors/nexmark defines its 'seed' option as that value.
 * The base time, which the factory takes from the clock, is written to
 * the file.
 */
public final class ReferenceGen {

  private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;

  /** One configuration: connector options, or a configuration built directly. */
  private static final class Case {
    final String name;
    final long seed;
    final int parallelism;
    final int perSplit; // events written per split
    final Map<String, String> options = new LinkedHashMap<>();
    NexmarkConfiguration direct; // when set, options are not used
    long directBaseTime;

    Case(String name, long seed, int parallelism, int perSplit, String... kv) {
      this.name = name;
      this.seed = seed;
      this.parallelism = parallelism;
      this.perSplit = perSplit;
      for (int i = 0; i < kv.length; i += 2) {
        options.put(kv[i], kv[i + 1]);
      }
    }
  }

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0], "connectors", "nexmark", "testdata", "reference");
    Files.createDirectories(out);
    List<Case> cases = new ArrayList<>();
    cases.add(new Case("default", 0L, 1, 1000));
    cases.add(new Case("bounded-p3", 12345L, 3, 150,
        "events.num", "3000", "first-event.rate", "1000", "next-event.rate", "1000"));
    cases.add(new Case("unbounded-p2", -7L, 2, 150));
    cases.add(new Case("options", -4242424242424242L, 2, 150,
        "events.num", "100000",
        "stop-at", "700",
        "first-event.rate", "7",
        "person.proportion", "10",
        "auction.proportion", "20",
        "bid.proportion", "70",
        "person.avg-size", "1kb",
        "auction.avg-size", "100b",
        "bid.avg-size", "300 bytes",
        "bid.hot-ratio.auctions", "1",
        "bid.hot-ratio.bidders", "7",
        "auction.hot-ratio.sellers", "1",
        "rate.shape", "sine",
        "rate.period", "1 min",
        "rate.limited", "true",
        "max-emit-speed", "true"));
    Case direct = new Case("settings", 99L, 1, 600);
    direct.direct = new NexmarkConfiguration();
    direct.direct.numEvents = 0;
    direct.direct.numInFlightAuctions = 20;
    direct.direct.numActivePeople = 50;
    direct.direct.outOfOrderGroupSize = 7;
    direct.direct.firstEventRate = 333;
    direct.directBaseTime = 1700000000123L;
    cases.add(direct);
    // Each case runs in its own JVM (the generator's shared strings are
    // made once per JVM, from the seed): the program is started once per
    // case by run.sh with the case's name.
    String only = args.length > 1 ? args[1] : null;
    if (only == null) {
      System.out.println("prices");
      System.out.println("unseeded");
    } else if (only.equals("prices")) {
      prices(out.resolve("prices.txt"));
      return;
    } else if (only.equals("unseeded")) {
      unseeded(out.resolve("unseeded.txt"));
      return;
    }
    for (Case c : cases) {
      if (only == null) {
        System.out.println(c.name);
      } else if (only.equals(c.name)) {
        run(c, out.resolve(c.name + ".txt"));
      }
    }
  }

  /**
   * Writes what PriceGenerator.nextPrice computes, Math.round(Math.pow(10.0,
   * d * 6.0) * 100.0), for values of d whose price lies within a few ulps
   * of a rounding tie, where the last bits of Math.pow decide the cent:
   * for 1,000 random tie prices p + 0.5 cents, the d nearest to it and its
   * two neighbours on each side. Each line: d's bits in hex and the price.
   */
  private static void prices(Path file) throws IOException {
    SplittableRandom r = new SplittableRandom(1);
    try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
      w.println("# Prices of the public generator (Math.round(Math.pow(10.0, d * 6.0) * 100.0)) at rounding");
      w.println("# ties: the bits of d in hex and the price. Written by tools/nexmark-reference/run.sh. Do not edit.");
      for (int i = 0; i < 1000; i++) {
        long cents = 100 + r.nextLong(100_000_000L - 100);
        double d = Math.log10((cents + 0.5) / 100.0) / 6.0;
        for (int k = 0; k < 2; k++) {
          d = Math.nextDown(d);
        }
        for (int k = 0; k < 5; k++, d = Math.nextUp(d)) {
          w.println(Long.toHexString(Double.doubleToRawLongBits(d)) + " " + Math.round(Math.pow(10.0, d * 6.0) * 100.0));
        }
      }
    }
  }

  /**
   * Runs the generator as Flink would, without fixing its random sequence
   * (seeded from the clock), over the default options with 200,000 events,
   * and writes what the seed does not change exactly (a fingerprint of
   * every event's type, person or auction id and time after the base
   * time) and the random fields by their distribution: the mean and
   * standard deviation of features of each event type (see
   * features()). (Features of the URLs depend on the URL cache the JVM
   * draws once, and would differ by more than their sampling error; only
   * the share of channel URLs with a channel_id is kept.)
   */
  private static void unseeded(Path file) throws Exception {
    int n = 200_000;
    Configuration job = new Configuration();
    job.set(CoreOptions.DEFAULT_PARALLELISM, 1);
    Map<String, String> options = new LinkedHashMap<>();
    options.put("connector", "nexmark");
    options.put("events.num", String.valueOf(n));
    DynamicTableSource table = FactoryUtil.createDynamicTableSource(
        null,
        ObjectIdentifier.of("default", "default", "nexmark"),
        new ResolvedCatalogTable(
            CatalogTable.newBuilder().schema(NexmarkTableSource.NEXMARK_SCHEMA).options(options).build(),
            NexmarkTableSource.RESOLVED_SCHEMA),
        Collections.emptyMap(), job, ReferenceGen.class.getClassLoader(), false);
    Field f = NexmarkTableSource.class.getDeclaredField("config");
    f.setAccessible(true);
    GeneratorConfig config = (GeneratorConfig) f.get(table);
    Constructor<NexmarkSource> ctor = NexmarkSource.class.getDeclaredConstructor(
        GeneratorConfig.class, org.apache.flink.api.common.typeinfo.TypeInformation.class);
    ctor.setAccessible(true);
    NexmarkSource source = ctor.newInstance(config, null);
    Method getSplits = NexmarkSource.class.getDeclaredMethod("getSplits", int.class);
    getSplits.setAccessible(true);
    @SuppressWarnings("unchecked")
    List<NexmarkSource.NexmarkSourceSplit> splits = (List<NexmarkSource.NexmarkSourceSplit>) getSplits.invoke(source, 1);
    SourceReader<RowData, NexmarkSource.NexmarkSourceSplit> r = source.createReader(readerContext(0, 1));
    r.start();
    r.addSplits(splits);
    List<RowData> rows = new ArrayList<>();
    ReaderOutput<RowData> output = collector(rows);
    while (r.pollNext(output) == InputStatus.MORE_AVAILABLE) {
    }
    if (rows.size() != n) {
      throw new IllegalStateException(rows.size() + " events");
    }
    long fp = 0xcbf29ce484222325L;
    Map<String, double[]> stats = new java.util.TreeMap<>(); // n, sum, sum of squares
    for (RowData row : rows) {
      int type = row.getInt(0);
      String key;
      if (type == 0) {
        RowData p = row.getRow(1, 8);
        key = "0," + p.getLong(0) + "," + (p.getTimestamp(6, 3).getMillisecond() - config.baseTime);
      } else if (type == 1) {
        RowData a = row.getRow(2, 10);
        key = "1," + a.getLong(0) + "," + (a.getTimestamp(5, 3).getMillisecond() - config.baseTime);
      } else {
        RowData b = row.getRow(3, 7);
        key = "2,-," + (b.getTimestamp(5, 3).getMillisecond() - config.baseTime);
      }
      for (byte c : (key + "\n").getBytes(StandardCharsets.UTF_8)) {
        fp ^= c & 0xff;
        fp *= 0x100000001b3L;
      }
      for (Map.Entry<String, Double> e : features(row).entrySet()) {
        double[] st = stats.computeIfAbsent(e.getKey(), k -> new double[3]);
        st[0]++;
        st[1] += e.getValue();
        st[2] += e.getValue() * e.getValue();
      }
    }
    try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
      w.println("# The public generator run as Flink runs it, seeded from the clock: default options, 200,000");
      w.println("# events. Written by tools/nexmark-reference/run.sh. Do not edit.");
      w.println("events " + n);
      w.println("fingerprint " + Long.toHexString(fp));
      for (Map.Entry<String, double[]> e : stats.entrySet()) {
        double[] st = e.getValue();
        double mean = st[1] / st[0];
        double sd = Math.sqrt(Math.max(st[2] / st[0] - mean * mean, 0));
        w.println("stat " + e.getKey() + " " + (long) st[0] + " " + mean + " " + sd);
      }
    }
  }

  private static final java.util.Set<String> HOT_CHANNELS = java.util.Set.of("Google", "Facebook", "Baidu", "Apple");

  /** Features of an event's random fields; connectors/nexmark computes the same. */
  static Map<String, Double> features(RowData row) {
    Map<String, Double> m = new LinkedHashMap<>();
    int type = row.getInt(0);
    if (type == 0) {
      RowData p = row.getRow(1, 8);
      m.put("person.name.length", (double) p.getString(1).toString().length());
      m.put("person.email.length", (double) p.getString(2).toString().length());
      m.put("person.creditCard.first", Double.parseDouble(p.getString(3).toString().substring(0, 4)));
      m.put("person.city.SanFrancisco", p.getString(4).toString().equals("San Francisco") ? 1.0 : 0.0);
      m.put("person.state.OR", p.getString(5).toString().equals("OR") ? 1.0 : 0.0);
      m.put("person.extra.length", (double) p.getString(7).toString().length());
    } else if (type == 1) {
      RowData a = row.getRow(2, 10);
      m.put("auction.itemName.length", (double) a.getString(1).toString().length());
      m.put("auction.description.length", (double) a.getString(2).toString().length());
      m.put("auction.initialBid.log", Math.log10(a.getLong(3) / 100.0));
      m.put("auction.reserve.log", Math.log10((a.getLong(4) - a.getLong(3)) / 100.0));
      m.put("auction.expires.after", (double) (a.getTimestamp(6, 3).getMillisecond() - a.getTimestamp(5, 3).getMillisecond()));
      m.put("auction.seller.hot", a.getLong(7) % 100 == 0 ? 1.0 : 0.0);
      m.put("auction.category", (double) a.getLong(8));
      m.put("auction.extra.length", (double) a.getString(9).toString().length());
    } else {
      RowData b = row.getRow(3, 7);
      m.put("bid.auction.hot", b.getLong(0) % 100 == 0 ? 1.0 : 0.0);
      m.put("bid.bidder.hot", b.getLong(1) % 100 == 1 ? 1.0 : 0.0);
      m.put("bid.price.log", Math.log10(b.getLong(2) / 100.0));
      String channel = b.getString(3).toString();
      String url = b.getString(4).toString();
      m.put("bid.channel.hot", HOT_CHANNELS.contains(channel) ? 1.0 : 0.0);
      if (!HOT_CHANNELS.contains(channel)) {
        m.put("bid.url.channelId", url.contains("&channel_id=") ? 1.0 : 0.0);
      }
      m.put("bid.extra.length", (double) b.getString(6).toString().length());
    }
    return m;
  }

  private static AtomicLong defaultGen() throws ReflectiveOperationException {
    Field f = SplittableRandom.class.getDeclaredField("defaultGen");
    f.setAccessible(true);
    return (AtomicLong) f.get(null);
  }

  private static void expectSequence(AtomicLong gen, long want, String after) {
    if (gen.get() != want) {
      throw new IllegalStateException("the default SplittableRandom sequence moved unexpectedly " + after);
    }
  }

  private static void run(Case c, Path file) throws Exception {
    GeneratorConfig config;
    if (c.direct == null) {
      Configuration job = new Configuration();
      job.set(CoreOptions.DEFAULT_PARALLELISM, c.parallelism);
      Map<String, String> options = new LinkedHashMap<>();
      options.put("connector", "nexmark");
      options.putAll(c.options);
      DynamicTableSource source = FactoryUtil.createDynamicTableSource(
          null,
          ObjectIdentifier.of("default", "default", "nexmark"),
          new ResolvedCatalogTable(
              CatalogTable.newBuilder()
                  .schema(NexmarkTableSource.NEXMARK_SCHEMA)
                  .options(options)
                  .build(),
              NexmarkTableSource.RESOLVED_SCHEMA),
          Collections.emptyMap(),
          job,
          ReferenceGen.class.getClassLoader(),
          false);
      Field f = NexmarkTableSource.class.getDeclaredField("config");
      f.setAccessible(true);
      config = (GeneratorConfig) f.get(source);
    } else {
      c.direct.numEventGenerators = c.parallelism;
      config = new GeneratorConfig(c.direct, c.directBaseTime, 1, c.direct.numEvents, c.direct.stopAtEvent, 1);
    }

    Constructor<NexmarkSource> ctor = NexmarkSource.class.getDeclaredConstructor(
        GeneratorConfig.class, org.apache.flink.api.common.typeinfo.TypeInformation.class);
    ctor.setAccessible(true);
    NexmarkSource source = ctor.newInstance(config, null);
    Method getSplits = NexmarkSource.class.getDeclaredMethod("getSplits", int.class);
    getSplits.setAccessible(true);
    @SuppressWarnings("unchecked")
    List<NexmarkSource.NexmarkSourceSplit> splits =
        (List<NexmarkSource.NexmarkSourceSplit>) getSplits.invoke(source, c.parallelism);

    AtomicLong gen = defaultGen();
    gen.set(c.seed);
    Class.forName("com.github.nexmark.flink.generator.model.StringsGenerator", true, ReferenceGen.class.getClassLoader());
    expectSequence(gen, c.seed + 2 * GOLDEN_GAMMA, "in StringsGenerator's initialisation");
    Class.forName("com.github.nexmark.flink.generator.model.BidGenerator", true, ReferenceGen.class.getClassLoader());
    expectSequence(gen, c.seed + 4 * GOLDEN_GAMMA, "in BidGenerator's initialisation");
    List<SourceReader<RowData, NexmarkSource.NexmarkSourceSplit>> readers = new ArrayList<>();
    for (int i = 0; i < splits.size(); i++) {
      SourceReader<RowData, NexmarkSource.NexmarkSourceSplit> r = source.createReader(readerContext(i, c.parallelism));
      r.start();
      r.addSplits(Collections.singletonList(splits.get(i)));
      readers.add(r);
      expectSequence(gen, c.seed + (6 + 2L * i) * GOLDEN_GAMMA, "when the reader of split " + i + " was opened");
    }

    try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
      w.println("# The first events of the public Nexmark generator (nexmark-flink, java/upstream of");
      w.println("# tools/nexmark-reference), written by tools/nexmark-reference/run.sh. Do not edit.");
      w.println("case " + c.name);
      w.println("seed " + c.seed);
      w.println("parallelism " + c.parallelism);
      w.println("base-time " + config.baseTime);
      if (c.direct != null) {
        w.println("setting num-in-flight-auctions " + c.direct.numInFlightAuctions);
        w.println("setting num-active-people " + c.direct.numActivePeople);
        w.println("setting out-of-order-group-size " + c.direct.outOfOrderGroupSize);
        w.println("setting first-event.rate " + c.direct.firstEventRate);
      }
      for (Map.Entry<String, String> e : c.options.entrySet()) {
        w.println("option " + e.getKey() + "=" + e.getValue());
      }
      for (int i = 0; i < readers.size(); i++) {
        List<RowData> rows = new ArrayList<>();
        ReaderOutput<RowData> output = collector(rows);
        SourceReader<RowData, NexmarkSource.NexmarkSourceSplit> r = readers.get(i);
        long total = 0;
        InputStatus st;
        // Poll until the split ends (bounded cases) or enough rows were
        // read; count every event of bounded splits.
        boolean bounded = c.direct == null && (c.options.containsKey("events.num") || c.options.containsKey("stop-at"));
        while ((st = r.pollNext(output)) == InputStatus.MORE_AVAILABLE) {
          total++;
          if (!bounded && total >= c.perSplit) {
            break;
          }
          if (rows.size() > c.perSplit) {
            rows.remove(rows.size() - 1);
          }
        }
        w.println("split " + i + (bounded ? " total " + total : ""));
        for (int n = 0; n < Math.min(rows.size(), c.perSplit); n++) {
          w.println(json(rows.get(n)));
        }
      }
    }
  }

  private static SourceReaderContext readerContext(int index, int parallelism) {
    return (SourceReaderContext) Proxy.newProxyInstance(
        ReferenceGen.class.getClassLoader(),
        new Class<?>[] {SourceReaderContext.class},
        (proxy, method, args) -> {
          switch (method.getName()) {
            case "metricGroup":
              return UnregisteredMetricsGroup.createSourceReaderMetricGroup();
            case "getIndexOfSubtask":
              return index;
            case "currentParallelism":
              return parallelism;
            case "getConfiguration":
              return new Configuration();
            case "getLocalHostName":
              return "localhost";
            default:
              return null;
          }
        });
  }

  @SuppressWarnings("unchecked")
  private static ReaderOutput<RowData> collector(List<RowData> rows) {
    return (ReaderOutput<RowData>) Proxy.newProxyInstance(
        ReferenceGen.class.getClassLoader(),
        new Class<?>[] {ReaderOutput.class},
        (proxy, method, args) -> {
          if (method.getName().equals("collect")) {
            rows.add((RowData) args[0]);
          } else if (method.getName().equals("createOutputForSplit")) {
            return (SourceOutput<RowData>) proxy;
          }
          return null;
        });
  }

  // One JSON object per event: event_type and the non-null nested row,
  // times as epoch milliseconds.
  private static String json(RowData row) {
    StringBuilder b = new StringBuilder();
    int type = row.getInt(0);
    b.append("{\"event_type\":").append(type);
    switch (type) {
      case 0: {
        RowData p = row.getRow(1, 8);
        b.append(",\"person\":{\"id\":").append(p.getLong(0));
        str(b, "name", p, 1);
        str(b, "emailAddress", p, 2);
        str(b, "creditCard", p, 3);
        str(b, "city", p, 4);
        str(b, "state", p, 5);
        b.append(",\"dateTime\":").append(p.getTimestamp(6, 3).getMillisecond());
        str(b, "extra", p, 7);
        break;
      }
      case 1: {
        RowData a = row.getRow(2, 10);
        b.append(",\"auction\":{\"id\":").append(a.getLong(0));
        str(b, "itemName", a, 1);
        str(b, "description", a, 2);
        b.append(",\"initialBid\":").append(a.getLong(3));
        b.append(",\"reserve\":").append(a.getLong(4));
        b.append(",\"dateTime\":").append(a.getTimestamp(5, 3).getMillisecond());
        b.append(",\"expires\":").append(a.getTimestamp(6, 3).getMillisecond());
        b.append(",\"seller\":").append(a.getLong(7));
        b.append(",\"category\":").append(a.getLong(8));
        str(b, "extra", a, 9);
        break;
      }
      default: {
        RowData d = row.getRow(3, 7);
        b.append(",\"bid\":{\"auction\":").append(d.getLong(0));
        b.append(",\"bidder\":").append(d.getLong(1));
        b.append(",\"price\":").append(d.getLong(2));
        str(b, "channel", d, 3);
        str(b, "url", d, 4);
        b.append(",\"dateTime\":").append(d.getTimestamp(5, 3).getMillisecond());
        str(b, "extra", d, 6);
      }
    }
    for (int i = 1; i <= 3; i++) {
      if (i != type + 1 && !row.isNullAt(i)) {
        throw new IllegalStateException("event of type " + type + " has field " + i + " set");
      }
    }
    return b.append("}}").toString();
  }

  private static void str(StringBuilder b, String name, RowData r, int i) {
    b.append(",\"").append(name).append("\":\"");
    String s = r.getString(i).toString();
    for (int k = 0; k < s.length(); k++) {
      char ch = s.charAt(k);
      if (ch == '"' || ch == '\\') {
        b.append('\\').append(ch);
      } else if (ch < 0x20 || ch > 0x7e) {
        b.append(String.format("\\u%04x", (int) ch));
      } else {
        b.append(ch);
      }
    }
    b.append('"');
  }

  private ReferenceGen() {}

}
