package streamsql.flinkrunner;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * Runs the statements of Flink SQL files on a MiniCluster at parallelism 1,
 * as cmd/streamsql-bench's Nexmark suite runs the same files through
 * streamsql: the files are read unchanged, with ${NAME} replaced by the
 * values given, and extra options set on a table the way streamsql's
 * option hints do (an ALTER TABLE ... SET right after the table's CREATE
 * TABLE), such as a Kafka table's bounded mode so that the job ends when
 * the topic is consumed.
 *
 * <pre>
 * java -cp 'target/flink-sql-runner-1.jar:target/libs/*' streamsql.flinkrunner.Run \
 *     [--var NAME=VALUE]... [--table-option TABLE.KEY=VALUE]... [--conf KEY=VALUE]... FILE...
 * </pre>
 *
 * Every INSERT of the files runs as one job (a statement set); the other
 * statements (CREATE TABLE, CREATE VIEW, SET) run in order before it. When
 * the job has finished, the runner prints one line of JSON to stdout:
 * {"phases_ms": {...}, "vm_hwm_kb": N}, the milliseconds since the epoch at
 * which main started, the job was submitted and it finished, and the
 * process's peak resident set size read from /proc/self/status. Errors go
 * to stderr with exit status 1; a statement or a job Flink refuses while
 * planning it exits with status 2.
 */
public final class Run {
    private Run() {}

    public static void main(String[] args) throws Exception {
        long start = System.currentTimeMillis();
        Map<String, String> vars = new LinkedHashMap<>();
        Map<String, Map<String, String>> tableOptions = new LinkedHashMap<>();
        Configuration conf = new Configuration();
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--var" -> {
                    String[] kv = keyValue(args, ++i, a);
                    vars.put(kv[0], kv[1]);
                }
                case "--table-option" -> {
                    String[] kv = keyValue(args, ++i, a);
                    int dot = kv[0].indexOf('.');
                    if (dot <= 0) {
                        throw new IllegalArgumentException("--table-option wants TABLE.KEY=VALUE, got " + args[i]);
                    }
                    tableOptions
                            .computeIfAbsent(kv[0].substring(0, dot), t -> new LinkedHashMap<>())
                            .put(kv[0].substring(dot + 1), kv[1]);
                }
                case "--conf" -> {
                    String[] kv = keyValue(args, ++i, a);
                    conf.setString(kv[0], kv[1]);
                }
                default -> {
                    if (a.startsWith("--")) {
                        throw new IllegalArgumentException("unknown flag " + a);
                    }
                    files.add(Path.of(a));
                }
            }
        }
        if (files.isEmpty()) {
            throw new IllegalArgumentException("no SQL file given");
        }

        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, conf);
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(env, EnvironmentSettings.newInstance().inStreamingMode().build());
        StatementSet inserts = tEnv.createStatementSet();
        int nInserts = 0;
        for (Path f : files) {
            String text = substitute(Files.readString(f, StandardCharsets.UTF_8), vars, f);
            for (String stmt : split(text)) {
                try {
                    if (firstWord(stmt).equals("INSERT")) {
                        inserts.addInsertSql(stmt);
                        nInserts++;
                        continue;
                    }
                    tEnv.executeSql(stmt);
                    String created = createdTable(stmt);
                    if (created != null && tableOptions.containsKey(created)) {
                        tEnv.executeSql(alterTable(created, tableOptions.remove(created)));
                    }
                } catch (RuntimeException e) {
                    System.err.println(f + ": " + e.getMessage());
                    System.exit(2);
                }
            }
        }
        if (!tableOptions.isEmpty()) {
            throw new IllegalArgumentException("--table-option names tables the files do not create: " + tableOptions.keySet());
        }
        if (nInserts == 0) {
            throw new IllegalArgumentException("the files hold no INSERT");
        }
        long submitted = System.currentTimeMillis();
        TableResult result;
        try {
            // Plans the statement set (a query Flink cannot run fails here)
            // and submits the job.
            result = inserts.execute();
        } catch (RuntimeException e) {
            System.err.println("planning the job: " + e.getMessage());
            System.exit(2);
            return;
        }
        result.await();
        long finished = System.currentTimeMillis();
        System.out.printf(
                "{\"phases_ms\":{\"main\":%d,\"submitted\":%d,\"finished\":%d},\"vm_hwm_kb\":%d}%n",
                start, submitted, finished, peakRSSKB());
        System.out.flush();
        // The job is done and its figures are out; the MiniCluster's
        // shutdown adds nothing to them.
        System.exit(0);
    }

    private static String[] keyValue(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        int eq = args[i].indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException(flag + " wants KEY=VALUE, got " + args[i]);
        }
        return new String[] {args[i].substring(0, eq), args[i].substring(eq + 1)};
    }

    private static final Pattern VAR = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)\\}");

    /** Replaces ${NAME} with its value; a name without one is an error. */
    static String substitute(String text, Map<String, String> vars, Path f) {
        Matcher m = VAR.matcher(text);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            String v = vars.get(m.group(1));
            if (v == null) {
                throw new IllegalArgumentException(f + ": no value for ${" + m.group(1) + "} (pass --var " + m.group(1) + "=...)");
            }
            m.appendReplacement(b, Matcher.quoteReplacement(v));
        }
        m.appendTail(b);
        return b.toString();
    }

    /**
     * Splits SQL text into statements at semicolons outside string
     * literals, quoted identifiers and comments; statements that hold
     * only comments and blanks are dropped.
     */
    static List<String> split(String text) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean code = false; // cur holds something other than comments and blanks
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c == '-' && i + 1 < n && text.charAt(i + 1) == '-') {
                int end = text.indexOf('\n', i);
                end = end < 0 ? n : end;
                cur.append(text, i, end);
                i = end - 1;
                continue;
            }
            if (c == '/' && i + 1 < n && text.charAt(i + 1) == '*') {
                int end = text.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                cur.append(text, i, end);
                i = end - 1;
                continue;
            }
            if (c == '\'' || c == '`' || c == '"') {
                int j = i + 1;
                while (j < n) {
                    if (text.charAt(j) == c) {
                        if (j + 1 < n && text.charAt(j + 1) == c) {
                            j += 2; // a doubled quote
                            continue;
                        }
                        break;
                    }
                    j++;
                }
                j = Math.min(j, n - 1);
                cur.append(text, i, j + 1);
                code = true;
                i = j;
                continue;
            }
            if (c == ';') {
                if (code) {
                    out.add(cur.toString().trim());
                }
                cur.setLength(0);
                code = false;
                continue;
            }
            if (!Character.isWhitespace(c)) {
                code = true;
            }
            cur.append(c);
        }
        if (code) {
            out.add(cur.toString().trim());
        }
        return out;
    }

    /** The statement's first word, upper-cased, after comments. */
    static String firstWord(String stmt) {
        String s = stripComments(stmt).trim();
        int i = 0;
        while (i < s.length() && Character.isLetter(s.charAt(i))) {
            i++;
        }
        return s.substring(0, i).toUpperCase(java.util.Locale.ROOT);
    }

    private static final Pattern CREATE_TABLE =
            Pattern.compile("(?is)^\\s*CREATE\\s+(?:TEMPORARY\\s+)?TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?(`[^`]+`|[A-Za-z_][A-Za-z0-9_]*)");

    /** The name of the table a CREATE TABLE statement creates, else null. */
    static String createdTable(String stmt) {
        Matcher m = CREATE_TABLE.matcher(stripComments(stmt));
        if (!m.find()) {
            return null;
        }
        String name = m.group(1);
        return name.startsWith("`") ? name.substring(1, name.length() - 1) : name;
    }

    private static String stripComments(String stmt) {
        return stmt.replaceAll("(?m)--.*$", "").replaceAll("(?s)/\\*.*?\\*/", "");
    }

    static String alterTable(String table, Map<String, String> options) {
        StringBuilder b = new StringBuilder("ALTER TABLE `" + table.replace("`", "``") + "` SET (");
        String sep = "";
        for (Map.Entry<String, String> e : options.entrySet()) {
            b.append(sep).append(quote(e.getKey())).append(" = ").append(quote(e.getValue()));
            sep = ", ";
        }
        return b.append(")").toString();
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    /** VmHWM of /proc/self/status, in KiB; -1 when it cannot be read. */
    static long peakRSSKB() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    String[] f = line.substring(6).trim().split("\\s+");
                    return Long.parseLong(f[0]);
                }
            }
        } catch (Exception e) {
            // reported as -1
        }
        return -1;
    }
}
