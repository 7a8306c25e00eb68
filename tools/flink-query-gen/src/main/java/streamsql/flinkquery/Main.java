package streamsql.flinkquery;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Runs each case file (NAME.sql) of a folder in a streaming TableEnvironment at
 * parallelism 1 and writes NAME.flink: the changelog of its last statement, a
 * query, one row a line as "+I[v1, v2]" where each value is Flink's own
 * CAST(value AS STRING) (or "null"), or "ERROR: message" when Flink refuses or
 * fails the case. A line "-- include: FILE KEY=VALUE ..." is replaced by the
 * text of FILE (relative to the folder) with each "${KEY}" in it replaced by
 * VALUE, as the Go tests read the cases (internal/testrig/flinkcases); then
 * "${DATA}" is replaced by the folder's path. A last statement DESCRIBE or SHOW
 * runs as it is, its rows written as Flink's Row prints them. The arguments
 * after the folder
 * are name prefixes: only the cases whose name starts with one of them run
 * (all of them when none is given), one after another in this JVM.
 *
 * A case whose first line says "beyond Flink" is one Flink's streaming mode
 * refuses and streamsql runs: when the streaming run gives "ERROR: ...", the
 * case also runs in Flink's batch mode over the same bounded files, and its
 * rows, "[v1, v2]" one a line, sorted, go to NAME.want: the table
 * streamsql's changelog must leave.
 */
public final class Main {
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]).toAbsolutePath();
        List<String> only = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            if (!args[i].isEmpty()) {
                only.add(args[i]);
            }
        }
        List<Path> cases;
        try (Stream<Path> s = Files.list(dir)) {
            cases = s.filter(p -> p.toString().endsWith(".sql")).sorted().toList();
        }
        for (Path c : cases) {
            String name = c.getFileName().toString().replaceFirst("\\.sql$", "");
            if (!only.isEmpty() && only.stream().noneMatch(name::startsWith)) {
                continue;
            }
            String text = expand(dir, Files.readString(c)).replace("${DATA}", dir.toString());
            String out = run(text, false);
            Files.writeString(dir.resolve(name + ".flink"), out, StandardCharsets.UTF_8);
            System.err.println(name + ": " + out.lines().count() + " lines");
            if (out.startsWith("ERROR: ") && text.lines().findFirst().orElse("").contains("beyond Flink")) {
                String batch = run(text, true);
                if (batch.startsWith("ERROR: ")) {
                    throw new IllegalStateException(name + ": Flink's batch mode refuses it too: " + batch.trim());
                }
                List<String> rows = new ArrayList<>();
                for (String l : batch.split("\n")) {
                    if (!l.isEmpty()) {
                        rows.add(l.substring(l.indexOf('[')));
                    }
                }
                java.util.Collections.sort(rows);
                Files.writeString(dir.resolve(name + ".want"), String.join("\n", rows) + "\n", StandardCharsets.UTF_8);
                System.err.println(name + ": " + rows.size() + " rows from Flink's batch mode");
            }
        }
        System.exit(0);
    }

    /** Runs a case in Flink's streaming mode, or its batch mode when batch is set. */
    static String run(String text, boolean batch) {
        Configuration conf = new Configuration();
        conf.setString("parallelism.default", "1");
        conf.setString("table.exec.resource.default-parallelism", "1");
        conf.setString("table.local-time-zone", "UTC");
        TableEnvironment env = TableEnvironment.create(
                (batch ? EnvironmentSettings.newInstance().inBatchMode() : EnvironmentSettings.newInstance().inStreamingMode())
                        .withConfiguration(conf).build());
        List<String> stmts = new ArrayList<>();
        for (String s : text.split(";")) {
            String body = stripComments(s).trim();
            if (!body.isEmpty()) {
                stmts.add(body);
            }
        }
        StringBuilder b = new StringBuilder();
        try {
            for (int i = 0; i < stmts.size() - 1; i++) {
                // SET 'key' = 'value' (a job file's table setting) goes
                // into the environment's configuration, as the SQL client
                // does with it.
                java.util.regex.Matcher set = SET.matcher(stmts.get(i));
                if (set.matches()) {
                    env.getConfig().getConfiguration().setString(set.group(1), set.group(2));
                    continue;
                }
                env.executeSql(stmts.get(i)).await();
            }
            String last = stmts.get(stmts.size() - 1);
            if (DESCRIBE.matcher(last).lookingAt() || SORTED.matcher(last).matches()) {
                // DESCRIBE is no query to wrap, and a query sorted without
                // LIMIT loses its sort in a subquery: their rows as they
                // come.
                try (CloseableIterator<Row> it = env.executeSql(last).collect()) {
                    while (it.hasNext()) {
                        Row row = it.next();
                        b.append(row.getKind().shortString()).append('[');
                        for (int i = 0; i < row.getArity(); i++) {
                            Object v = row.getField(i);
                            String s = v == null ? "null" : v.toString();
                            b.append(i > 0 ? ", " : "").append(s);
                        }
                        b.append("]\n");
                    }
                }
                return b.toString();
            }
            Table q = env.sqlQuery(last);
            List<String> cols = q.getResolvedSchema().getColumnNames();
            StringBuilder w = new StringBuilder("SELECT ");
            for (int i = 0; i < cols.size(); i++) {
                w.append(i > 0 ? ", " : "").append("CAST(`").append(cols.get(i).replace("`", "``")).append("` AS STRING)");
            }
            w.append(" FROM (").append(stmts.get(stmts.size() - 1)).append(")");
            TableResult r = env.executeSql(w.toString());
            try (CloseableIterator<Row> it = r.collect()) {
                while (it.hasNext()) {
                    Row row = it.next();
                    b.append(row.getKind().shortString()).append('[');
                    for (int i = 0; i < row.getArity(); i++) {
                        Object v = row.getField(i);
                        b.append(i > 0 ? ", " : "").append(v == null ? "null" : v.toString());
                    }
                    b.append("]\n");
                }
            }
        } catch (Throwable e) {
            Throwable root = e;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            String msg = String.valueOf(root.getMessage()).lines().findFirst().orElse("");
            b.setLength(0);
            b.append("ERROR: ").append(msg).append('\n');
        }
        return b.toString();
    }

    static final String INCLUDE = "-- include:";

    static final java.util.regex.Pattern DESCRIBE =
            java.util.regex.Pattern.compile("(?is)(DESCRIBE|DESC|SHOW)\\s");

    /** A query whose last clause is ORDER BY without LIMIT, FETCH or OFFSET. */
    static final java.util.regex.Pattern SORTED =
            java.util.regex.Pattern.compile("(?is)(SELECT|WITH)\\b.*\\bORDER\\s+BY\\b(?:(?!\\b(?:LIMIT|FETCH|OFFSET)\\b)[^()])*");

    static final java.util.regex.Pattern SET =
            java.util.regex.Pattern.compile("(?is)SET\\s+'([^']*)'\\s*=\\s*'([^']*)'");

    /** Expands the include lines of a case's text (see the class comment). */
    static String expand(Path dir, String text) throws java.io.IOException {
        StringBuilder b = new StringBuilder();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String l = lines[i].trim();
            if (!l.startsWith(INCLUDE)) {
                b.append(lines[i]);
            } else {
                String[] f = l.substring(INCLUDE.length()).trim().split("\\s+");
                String body = Files.readString(dir.resolve(f[0]));
                for (int k = 1; k < f.length; k++) {
                    int eq = f[k].indexOf('=');
                    if (eq <= 0 || !body.contains("${" + f[k].substring(0, eq) + "}")) {
                        throw new IllegalArgumentException(l + ": " + f[k] + " is not KEY=VALUE of a ${KEY} in " + f[0]);
                    }
                    body = body.replace("${" + f[k].substring(0, eq) + "}", f[k].substring(eq + 1));
                }
                if (body.contains(INCLUDE)) {
                    throw new IllegalArgumentException(f[0] + " includes another file");
                }
                b.append(body.replaceAll("\n+$", ""));
            }
            if (i < lines.length - 1) {
                b.append('\n');
            }
        }
        return b.toString();
    }

    static String stripComments(String s) {
        StringBuilder b = new StringBuilder();
        for (String line : s.split("\n")) {
            if (!line.trim().startsWith("--")) {
                b.append(line).append('\n');
            }
        }
        return b.toString();
    }
}
