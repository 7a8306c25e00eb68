package streamsql.flinkgen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Evaluates the expression cases of planner/expr (testdata/flink/cases.json, written by the Go
 * tests) with Flink's own table runtime and writes what Flink returns to
 * testdata/flink/results.json.
 *
 * <p>For each case it runs, in a local batch TableEnvironment:
 *
 * <pre>
 * SELECT i, CAST((expr) AS STRING), expr
 * FROM (VALUES (0, CAST(NULL AS T1), ...), (1, v11, ...), ...) AS t(i, c1, ...)
 * WHERE i > 0
 * </pre>
 *
 * The all-NULL row 0 keeps every input column nullable. The result type is the resolved type of
 * the third column; the value is Flink's own CAST to STRING. When the query fails at run time,
 * each row is run alone so that only the failing rows record an error. A query that does not
 * plan records a planning error.
 */
public final class Main {
  public static void main(String[] args) throws Exception {
    String dir = args.length > 0 ? args[0] : "../../planner/expr/testdata/flink";
    ObjectMapper om = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    JsonNode spec = om.readTree(new File(dir, "cases.json"));
    String zone = spec.get("timeZone").asText();

    TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
    env.getConfig().setLocalTimeZone(ZoneId.of(zone));
    env.getConfig().set("parallelism.default", "1");

    ObjectNode out = om.createObjectNode();
    out.put("generator", "tools/flink-functions-gen");
    out.put("flinkVersion", org.apache.flink.runtime.util.EnvironmentInformation.getVersion());
    out.put("timeZone", zone);
    ObjectNode results = out.putObject("results");
    String only = System.getenv("ONLY");
    File resultsFile = new File(dir, "results.json");
    if (only != null && resultsFile.exists()) {
      // Re-running a subset: keep the other cases' results.
      JsonNode old = om.readTree(resultsFile).get("results");
      old.fields().forEachRemaining(e -> results.set(e.getKey(), e.getValue()));
    }
    int n = 0;
    for (JsonNode c : spec.get("cases")) {
      String id = c.get("id").asText();
      if (only != null && !matchesAny(id, only)) {
        continue;
      }
      // A case may run in its own session time zone (DST cases).
      String caseZone = c.has("timeZone") ? c.get("timeZone").asText() : zone;
      env.getConfig().setLocalTimeZone(ZoneId.of(caseZone));
      ObjectNode r = runCase(env, om, c);
      // Each result names the Flink that computed it: a subset run may
      // use a newer Flink than the results it keeps.
      r.put("flinkVersion", org.apache.flink.runtime.util.EnvironmentInformation.getVersion());
      results.set(id, r);
      n++;
      if (n % 20 == 0) {
        System.err.println(n + " cases done");
      }
    }
    // Drop results of cases that no longer exist.
    java.util.Set<String> ids = new java.util.HashSet<>();
    for (JsonNode c : spec.get("cases")) {
      ids.add(c.get("id").asText());
    }
    results.retain(ids);
    om.writeValue(resultsFile, out);
    System.err.println("evaluated " + n + " cases; wrote " + results.size() + " results to " + resultsFile);
    System.exit(0);
  }

  /** Reports whether id starts with one of the comma-separated prefixes of only. */
  static boolean matchesAny(String id, String only) {
    for (String prefix : only.split(",")) {
      if (!prefix.isEmpty() && id.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  static String query(JsonNode c, List<Integer> rows) {
    StringBuilder values = new StringBuilder();
    JsonNode cols = c.get("columns");
    values.append("(0");
    for (JsonNode col : cols) {
      values.append(", CAST(NULL AS ").append(col.get("type").asText()).append(")");
    }
    values.append(")");
    for (int r : rows) {
      JsonNode row = c.get("rows").get(r);
      values.append(", (").append(r + 1);
      for (JsonNode v : row) {
        values.append(", ").append(v.asText());
      }
      values.append(")");
    }
    StringBuilder names = new StringBuilder("i");
    for (JsonNode col : cols) {
      names.append(", `").append(col.get("name").asText()).append("`");
    }
    String expr = c.get("expr").asText();
    return "SELECT i, CAST((" + expr + ") AS STRING), " + expr + " FROM (VALUES " + values
        + ") AS t(" + names + ") WHERE i > 0";
  }

  static ObjectNode runCase(TableEnvironment env, ObjectMapper om, JsonNode c) {
    ObjectNode res = om.createObjectNode();
    int nrows = c.get("rows").size();
    List<Integer> all = new ArrayList<>();
    for (int i = 0; i < nrows; i++) {
      all.add(i);
    }
    Table t;
    try {
      t = env.sqlQuery(query(c, all));
      res.put("type", t.getResolvedSchema().getColumnDataTypes().get(2).getLogicalType().asSummaryString());
    } catch (Throwable e) {
      res.put("planError", rootMessage(e));
      return res;
    }
    String[] values = new String[nrows];
    boolean[] isNull = new boolean[nrows];
    String[] errors = new String[nrows];
    try {
      collect(t, values, isNull);
    } catch (Throwable e) {
      // Run each row alone to find which ones fail.
      for (int r = 0; r < nrows; r++) {
        try {
          collect(env.sqlQuery(query(c, List.of(r))), values, isNull);
        } catch (Throwable e2) {
          errors[r] = rootMessage(e2);
        }
      }
    }
    ArrayNode rows = res.putArray("rows");
    for (int r = 0; r < nrows; r++) {
      ObjectNode o = rows.addObject();
      if (errors[r] != null) {
        o.put("error", errors[r]);
      } else if (isNull[r]) {
        o.put("null", true);
      } else {
        o.put("value", values[r]);
      }
    }
    return res;
  }

  static void collect(Table t, String[] values, boolean[] isNull) throws Exception {
    try (CloseableIterator<Row> it = t.execute().collect()) {
      while (it.hasNext()) {
        Row row = it.next();
        int i = ((Number) row.getField(0)).intValue() - 1;
        Object v = row.getField(1);
        isNull[i] = v == null;
        values[i] = v == null ? null : v.toString();
      }
    }
  }

  static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String m = root.getClass().getSimpleName() + ": " + root.getMessage();
    return m.length() > 300 ? m.substring(0, 300) : m;
  }
}
