package streamsql.gen;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.csv.CsvRowDataDeserializationSchema;
import org.apache.flink.formats.csv.CsvRowDataSerializationSchema;
import org.apache.flink.formats.json.JsonFormatOptions;
import org.apache.flink.formats.json.JsonRowDataDeserializationSchema;
import org.apache.flink.formats.json.JsonRowDataSerializationSchema;
import org.apache.flink.formats.json.canal.CanalJsonDeserializationSchema;
import org.apache.flink.formats.json.debezium.DebeziumJsonDeserializationSchema;
import org.apache.flink.formats.json.debezium.DebeziumJsonSerializationSchema;
import org.apache.flink.formats.json.maxwell.MaxwellJsonDeserializationSchema;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;

/**
 * Writes golden files for streamsql's json and csv formats with Flink's own
 * serialization schemas. Usage: Gen REPO_ROOT (see run.sh). The rows are
 * built here; the files record both the input row (in a small value
 * notation the Go tests read) and Flink's bytes.
 */
public final class Gen {
    static final String[] SCALARS = {
        "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE",
        "DECIMAL(10, 2)", "DECIMAL(38, 10)", "DECIMAL(5, 0)", "DECIMAL(18, 18)",
        "CHAR(3)", "VARCHAR(20)", "STRING", "BINARY(4)", "VARBINARY(10)", "BYTES",
        "DATE", "TIME(0)", "TIME(3)",
        "TIMESTAMP(0)", "TIMESTAMP(3)", "TIMESTAMP(6)", "TIMESTAMP(9)",
        "TIMESTAMP_LTZ(0)", "TIMESTAMP_LTZ(3)", "TIMESTAMP_LTZ(9)",
    };
    static final String[] NESTED = {
        "ARRAY<INT>", "ARRAY<STRING>", "ARRAY<ARRAY<DECIMAL(10, 2)>>",
        "MAP<STRING, BIGINT>", "MULTISET<STRING>",
        "ROW<`a` INT, `b` STRING, `c` ARRAY<ROW<`x` DOUBLE>>>",
    };
    static final String[] CSV_NESTED = {
        "ARRAY<INT>", "ARRAY<STRING>", "ARRAY<DECIMAL(10, 2)>", "ROW<`a` INT, `b` STRING>",
        "ROW<`a` TIMESTAMP(3), `b` DOUBLE, `c` BOOLEAN>",
    };

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args.length > 0 ? args[0] : ".");
        String version = org.apache.flink.runtime.util.EnvironmentInformation.getVersion();
        json(root.resolve("formats/json/testdata/flink"), version);
        csv(root.resolve("formats/csv/testdata/flink"), version);
        cdc(root.resolve("formats/cdc/testdata/flink"), version);
    }

    // ---- debezium-json, canal-json, maxwell-json

    static final String CDC_ROW = "ROW<`id` BIGINT, `name` STRING, `price` DECIMAL(10, 2), `ts` TIMESTAMP(3)>";
    /** A table whose nested fields share names with top-level ones: how "old" is searched for changed fields. */
    static final String CDC_NESTED = "ROW<`id` BIGINT, `name` STRING, `city` STRING, `addr` ROW<`city` STRING, `name` STRING>, "
        + "`tags` MAP<STRING, STRING>, `items` ARRAY<ROW<`name` STRING, `qty` INT>>>";

    static void cdc(Path dir, String version) throws Exception {
        Files.createDirectories(dir);
        RowType rt = (RowType) LogicalTypeParser.parse(CDC_ROW);
        DataType dt = TypeConversions.fromLogicalToDataType(rt);
        String full = "{\"id\":1,\"name\":\"scooter\",\"price\":3.14,\"ts\":\"2020-01-01 12:00:00.123\"}";
        String full2 = "{\"id\":1,\"name\":\"scooter\",\"price\":2.99,\"ts\":\"2020-01-02 08:30:00\"}";
        String nulls = "{\"id\":2,\"name\":null,\"price\":null,\"ts\":null}";
        String iso = "{\"id\":3,\"name\":\"iso\",\"price\":\"1.005\",\"ts\":\"2020-01-01T12:00:00.5\"}";
        String src = ",\"source\":{\"db\":\"inventory\",\"table\":\"products\",\"ts_ms\":1589362330000},\"ts_ms\":1589362330904";
        String[] debezium = {
            "{\"before\":null,\"after\":" + full + ",\"op\":\"c\"" + src + "}",
            "{\"before\":null,\"after\":" + full + ",\"op\":\"r\"}",
            "{\"before\":" + full + ",\"after\":" + full2 + ",\"op\":\"u\"" + src + "}",
            "{\"before\":" + full2 + ",\"after\":null,\"op\":\"d\"}",
            "{\"before\":null,\"after\":" + nulls + ",\"op\":\"c\"}",
            "{\"before\":null,\"after\":" + iso + ",\"op\":\"c\"}",
            "{\"after\":{\"id\":4,\"price\":12345678.999,\"extra\":[1]},\"op\":\"c\",\"transaction\":null}",
            "{\"before\":null,\"after\":" + full2 + ",\"op\":\"u\"}",
            "{\"before\":null,\"after\":null,\"op\":\"d\"}",
            "{\"before\":null,\"after\":" + full + ",\"op\":\"x\"}",
            "{\"before\":null,\"after\":" + full + "}",
            "{\"before\":null,\"after\":{\"id\":\"one\"},\"op\":\"c\"}",
            "{\"schema\":{\"type\":\"struct\"},\"payload\":{\"before\":null,\"after\":" + full + ",\"op\":\"c\"}}",
            "{\"schema\":null,\"payload\":{\"before\":" + full + ",\"after\":" + full2 + ",\"op\":\"u\"}}",
            "{\"before\":",
            "null",
            "",
        };
        String canalSrc = ",\"database\":\"inventory\",\"table\":\"products\",\"es\":1589373560000,\"ts\":1589373560798,\"isDdl\":false,\"pkNames\":[\"id\"]";
        String[] canal = {
            "{\"data\":[" + full + "," + nulls + "],\"old\":null,\"type\":\"INSERT\"" + canalSrc + "}",
            "{\"data\":[" + full2 + "],\"old\":[{\"price\":3.14,\"ts\":\"2020-01-01 12:00:00.123\"}],\"type\":\"UPDATE\"" + canalSrc + "}",
            "{\"data\":[" + full2 + "],\"old\":[{\"name\":null}],\"type\":\"UPDATE\"" + canalSrc + "}",
            "{\"data\":[" + full2 + "," + nulls + "],\"old\":[{\"price\":1},{\"name\":\"was\"}],\"type\":\"UPDATE\"" + canalSrc + "}",
            "{\"data\":[" + full2 + "],\"old\":null,\"type\":\"DELETE\"" + canalSrc + "}",
            "{\"data\":null,\"old\":null,\"type\":\"CREATE\",\"isDdl\":true,\"database\":\"inventory\",\"table\":\"products\",\"sql\":\"CREATE TABLE products (id INT)\"}",
            "{\"data\":null,\"old\":null,\"type\":\"ALTER\",\"isDdl\":true,\"database\":\"inventory\",\"table\":\"products\"}",
            "{\"data\":[" + full + "],\"type\":\"INSERT\",\"database\":\"other\",\"table\":\"users\"}",
            "{\"data\":[" + full + "],\"type\":\"NOPE\"" + canalSrc + "}",
            "{\"data\":[],\"type\":\"INSERT\"" + canalSrc + "}",
            "{\"data\":[" + iso + "],\"type\":\"INSERT\"" + canalSrc + "}",
            "{\"data\":",
            "",
        };
        String[] maxwell = {
            "{\"database\":\"inventory\",\"table\":\"products\",\"type\":\"insert\",\"ts\":1596684883,\"xid\":7,\"commit\":true,\"data\":" + full + ",\"primary_key_columns\":[\"id\"]}",
            "{\"database\":\"inventory\",\"table\":\"products\",\"type\":\"update\",\"ts\":1596684893,\"data\":" + full2 + ",\"old\":{\"price\":3.14,\"ts\":\"2020-01-01 12:00:00.123\"}}",
            "{\"database\":\"inventory\",\"table\":\"products\",\"type\":\"update\",\"ts\":1596684893,\"data\":" + full2 + ",\"old\":{\"name\":null}}",
            "{\"database\":\"inventory\",\"table\":\"products\",\"type\":\"delete\",\"ts\":1596684900,\"data\":" + full2 + "}",
            "{\"database\":\"inventory\",\"table\":\"products\",\"type\":\"insert\",\"data\":" + nulls + "}",
            "{\"database\":\"inventory\",\"table\":\"products\",\"type\":\"insert\",\"data\":" + iso + "}",
            "{\"database\":\"inventory\",\"table\":\"products\",\"type\":\"table-create\",\"def\":{}}",
            "{\"database\":\"inventory\",\"table\":\"products\",\"type\":\"bootstrap-insert\",\"data\":" + full + "}",
            "{\"database\":\"inventory\",\"table\":\"products\",\"type\":\"update\",\"data\":" + full2 + "}",
            "{\"data\":",
            "",
        };

        RowType nrt = (RowType) LogicalTypeParser.parse(CDC_NESTED);
        DataType ndt = TypeConversions.fromLogicalToDataType(nrt);
        String nfull = "{\"id\":1,\"name\":\"ann\",\"city\":\"Delft\",\"addr\":{\"city\":\"Delft\",\"name\":\"home\"},"
            + "\"tags\":{\"name\":\"vip\",\"tier\":\"gold\"},\"items\":[{\"name\":\"pen\",\"qty\":2}]}";
        // Each "old" lists a nested field only: which top-level NULLs of
        // the before-row are filled from "data" depends on how far the
        // field names are looked up inside "old".
        String[] nestedOld = {
            "{\"addr\":{\"city\":\"Leiden\",\"name\":\"work\"}}",
            "{\"addr\":{\"city\":\"Leiden\"}}",
            "{\"addr\":null}",
            "{\"tags\":{\"name\":\"new\"}}",
            "{\"tags\":{\"city\":null}}",
            "{\"items\":[{\"name\":\"pencil\",\"qty\":1}]}",
            "{\"items\":[]}",
            "{\"addr\":{\"na\\u006de\":\"escaped\"}}",
            "{\"name\":\"bob\",\"addr\":{\"city\":null,\"name\":null}}",
        };
        List<String> canalNested = new ArrayList<>();
        List<String> maxwellNested = new ArrayList<>();
        for (String o : nestedOld) {
            canalNested.add("{\"data\":[" + nfull + "],\"old\":[" + o + "],\"type\":\"UPDATE\"" + canalSrc + "}");
            maxwellNested.add("{\"database\":\"inventory\",\"table\":\"products\",\"type\":\"update\",\"data\":" + nfull + ",\"old\":" + o + "}");
        }
        // Canal: a field listed in another row of "old", nested there.
        canalNested.add("{\"data\":[" + nfull + "," + nfull + "],\"old\":[{\"id\":0},{\"addr\":{\"city\":\"Leiden\"}}],\"type\":\"UPDATE\"" + canalSrc + "}");

        StringBuilder out = header(version);
        boolean[][] dOpts = {{false, false}, {false, true}, {true, false}};
        for (String tf : new String[] {"SQL", "ISO_8601"}) {
            for (boolean[] o : dOpts) {
                out.append("options format=debezium-json debezium-json.schema-include=").append(o[0])
                    .append(" debezium-json.ignore-parse-errors=").append(o[1])
                    .append(" debezium-json.timestamp-format.standard=").append(tf.replace('_', '-')).append('\n');
                DebeziumJsonDeserializationSchema d = new DebeziumJsonDeserializationSchema(dt, Collections.emptyList(),
                    InternalTypeInfo.of(rt), o[0], o[1], TimestampFormat.valueOf(tf));
                d.open(deserCtx());
                for (String in : debezium) changelogCase(out, rt, in, d);
            }
            for (boolean ignore : new boolean[] {false, true}) {
                for (String[] filter : new String[][] {{null, null}, {"inv.*", "prod.*"}}) {
                    out.append("options format=canal-json canal-json.ignore-parse-errors=").append(ignore)
                        .append(" canal-json.timestamp-format.standard=").append(tf.replace('_', '-'));
                    if (filter[0] != null) {
                        out.append(" canal-json.database.include=").append(filter[0])
                            .append(" canal-json.table.include=").append(filter[1]);
                    }
                    out.append('\n');
                    CanalJsonDeserializationSchema.Builder b = CanalJsonDeserializationSchema.builder(dt, Collections.emptyList(),
                        InternalTypeInfo.of(rt)).setIgnoreParseErrors(ignore).setTimestampFormat(TimestampFormat.valueOf(tf));
                    if (filter[0] != null) b.setDatabase(filter[0]).setTable(filter[1]);
                    CanalJsonDeserializationSchema d = b.build();
                    d.open(deserCtx());
                    for (String in : canal) changelogCase(out, rt, in, d);
                    CanalJsonDeserializationSchema.Builder nb = CanalJsonDeserializationSchema.builder(ndt, Collections.emptyList(),
                        InternalTypeInfo.of(nrt)).setIgnoreParseErrors(ignore).setTimestampFormat(TimestampFormat.valueOf(tf));
                    if (filter[0] != null) nb.setDatabase(filter[0]).setTable(filter[1]);
                    CanalJsonDeserializationSchema nd = nb.build();
                    nd.open(deserCtx());
                    for (String in : canalNested) changelogCase(out, nrt, in, nd);
                }
                out.append("options format=maxwell-json maxwell-json.ignore-parse-errors=").append(ignore)
                    .append(" maxwell-json.timestamp-format.standard=").append(tf.replace('_', '-')).append('\n');
                MaxwellJsonDeserializationSchema d = new MaxwellJsonDeserializationSchema(dt, Collections.emptyList(),
                    InternalTypeInfo.of(rt), ignore, TimestampFormat.valueOf(tf));
                d.open(deserCtx());
                for (String in : maxwell) changelogCase(out, rt, in, d);
                MaxwellJsonDeserializationSchema nd = new MaxwellJsonDeserializationSchema(ndt, Collections.emptyList(),
                    InternalTypeInfo.of(nrt), ignore, TimestampFormat.valueOf(tf));
                nd.open(deserCtx());
                for (String in : maxwellNested) changelogCase(out, nrt, in, nd);
            }
        }
        Files.writeString(dir.resolve("deserialize.txt"), out.toString());

        out = header(version);
        String[][] sOpts = {
            {"SQL", "FAIL", "null", "false", "false"},
            {"ISO_8601", "FAIL", "null", "true", "false"},
            {"SQL", "FAIL", "null", "false", "true"},
        };
        Object[][] rows = {
            {1L, StringData.fromString("scooter"), DecimalData.fromBigDecimal(new BigDecimal("3.14"), 10, 2),
                TimestampData.fromEpochMillis(1577880000123L)},
            {2L, null, null, null},
            {3L, StringData.fromString("tiny \"q\""), DecimalData.fromBigDecimal(new BigDecimal("0.00"), 10, 2),
                TimestampData.fromEpochMillis(0L, 5)},
        };
        for (String[] o : sOpts) {
            out.append("options format=debezium-json debezium-json.timestamp-format.standard=").append(o[0].replace('_', '-'))
                .append(" debezium-json.map-null-key.mode=").append(o[1])
                .append(" debezium-json.map-null-key.literal=").append(o[2])
                .append(" debezium-json.encode.decimal-as-plain-number=").append(o[3])
                .append(" debezium-json.encode.ignore-null-fields=").append(o[4]).append('\n');
            DebeziumJsonSerializationSchema s = new DebeziumJsonSerializationSchema(rt, TimestampFormat.valueOf(o[0]),
                JsonFormatOptions.MapNullKeyMode.valueOf(o[1]), o[2], Boolean.parseBoolean(o[3]), Boolean.parseBoolean(o[4]));
            s.open(serCtx());
            for (Object[] r : rows) {
                for (RowKind k : RowKind.values()) {
                    GenericRowData row = GenericRowData.ofKind(k, r);
                    out.append("kind ").append(k.shortString()).append('\n');
                    serializeCase(out, rt, row, s);
                }
            }
        }
        Files.writeString(dir.resolve("serialize.txt"), out.toString());
    }

    /** One input of a changelog format: every row Flink emits ("crow KIND SPEC"), skip, or error. */
    static void changelogCase(StringBuilder out, RowType rt, String text, DeserializationSchema<RowData> d) {
        byte[] in = text.getBytes(StandardCharsets.UTF_8);
        out.append("case ").append(rt.asSummaryString()).append('\n');
        out.append("# ").append(text).append('\n');
        out.append("input ").append(Base64.getEncoder().encodeToString(in)).append('\n');
        List<RowData> rows = new ArrayList<>();
        try {
            d.deserialize(in, new Collector<RowData>() {
                public void collect(RowData r) { rows.add(r); }
                public void close() {}
            });
            if (rows.isEmpty()) out.append("skip\n");
            for (RowData r : rows) {
                out.append("crow ").append(r.getRowKind().shortString()).append(' ').append(spec(r, rt)).append('\n');
            }
        } catch (Throwable t) {
            out.append("error ").append(rootCause(t)).append('\n');
        }
    }

    // ---- json

    static void json(Path dir, String version) throws Exception {
        Files.createDirectories(dir);
        StringBuilder out = header(version);
        List<String> all = new ArrayList<>(List.of(SCALARS));
        all.addAll(List.of(NESTED));
        String[][] optionSets = {
            {"SQL", "FAIL", "null", "false", "false"},
            {"ISO_8601", "FAIL", "null", "false", "false"},
            {"SQL", "FAIL", "null", "true", "false"},
            {"SQL", "FAIL", "null", "false", "true"},
            {"SQL", "DROP", "null", "false", "false"},
            {"SQL", "LITERAL", "nil", "false", "false"},
        };
        for (String[] o : optionSets) {
            out.append("options json.timestamp-format.standard=").append(o[0].replace('_', '-'))
                .append(" json.map-null-key.mode=").append(o[1])
                .append(" json.map-null-key.literal=").append(o[2])
                .append(" json.encode.decimal-as-plain-number=").append(o[3])
                .append(" json.encode.ignore-null-fields=").append(o[4]).append('\n');
            for (String t : all) {
                RowType rt = (RowType) LogicalTypeParser.parse("ROW<`f` " + t + ", `g` INT>");
                JsonRowDataSerializationSchema s = new JsonRowDataSerializationSchema(rt,
                    TimestampFormat.valueOf(o[0]), JsonFormatOptions.MapNullKeyMode.valueOf(o[1]), o[2],
                    Boolean.parseBoolean(o[3]), Boolean.parseBoolean(o[4]));
                s.open(serCtx());
                for (Object v : values(rt.getTypeAt(0), true)) {
                    GenericRowData row = GenericRowData.of(v, 7);
                    serializeCase(out, rt, row, s);
                }
            }
        }
        Files.writeString(dir.resolve("serialize.txt"), out.toString());

        out = header(version);
        String[][] inputs = {
            {"INT", "{\"f\":\"42\"}", "{\"f\":42}", "{}", "{\"f\":null}", "{\"f\":1.5}", "{\"f\":\"x\"}", "{\"f\":", "[1]", "null", "", " "},
            {"BIGINT", "{\"f\":-9223372036854775808}", "{\"f\":\" 7 \"}"},
            {"BOOLEAN", "{\"f\":\"true\"}", "{\"f\":\"yes\"}", "{\"f\":false}"},
            {"DOUBLE", "{\"f\":\"NaN\"}", "{\"f\":1e3}", "{\"f\":\"-Infinity\"}"},
            {"STRING", "{\"f\":{\"a\":1}}", "{\"f\":123}", "{\"f\":\"\\u00e9\\n\"}", "{\"f\":[true,null]}", "{\"f\":{ \"a\" : [1, 2] }}", "{\"f\":1.50}", "{\"f\":true}"},
            {"STRING, `d` DECIMAL(5, 2)", "{\"f\":1.50}", "{\"f\":1e3}", "{\"f\":[0.10, 2]}"},
            {"DECIMAL(5, 2)", "{\"f\":\"1.005\"}", "{\"f\":1.004}", "{\"f\":-0.5}"},
            {"TIMESTAMP(3)", "{\"f\":\"2020-01-01 12:00:00.123\"}", "{\"f\":\"2020-01-01T12:00:00\"}", "{\"f\":\"2020-01-01 12:00\"}"},
            {"TIMESTAMP_LTZ(3)", "{\"f\":\"2020-01-01 12:00:00.5Z\"}", "{\"f\":\"2020-01-01 12:00:00\"}"},
            {"DATE", "{\"f\":\"2020-02-29\"}", "{\"f\":\"2021-02-29\"}"},
            {"TIME(3)", "{\"f\":\"10:11:12\"}", "{\"f\":\"10:11\"}"},
            {"BYTES", "{\"f\":\"AQI=\"}"},
            {"ARRAY<INT>", "{\"f\":[1,null,3]}", "{\"f\":[]}", "{\"f\":[1,\"x\",3]}"},
            {"MAP<STRING, INT>", "{\"f\":{\"a\":1,\"b\":null}}", "{\"f\":{\"a\":\"x\"}}"},
            {"ROW<`x` INT, `y` STRING>", "{\"f\":{\"y\":\"b\",\"x\":1,\"z\":0}}", "{\"f\":{}}"},
        };
        boolean[][] deserOpts = {{false, false}, {true, false}, {false, true}};
        for (boolean[] o : deserOpts) {
            for (String tf : new String[] {"SQL", "ISO_8601"}) {
                out.append("options json.fail-on-missing-field=").append(o[0])
                    .append(" json.ignore-parse-errors=").append(o[1])
                    .append(" json.timestamp-format.standard=").append(tf.replace('_', '-')).append('\n');
                for (String[] c : inputs) {
                    RowType rt = (RowType) LogicalTypeParser.parse("ROW<`f` " + c[0] + ">");
                    JsonRowDataDeserializationSchema d = new JsonRowDataDeserializationSchema(rt,
                        InternalTypeInfo.of(rt), o[0], o[1], TimestampFormat.valueOf(tf));
                    d.open(deserCtx());
                    for (int i = 1; i < c.length; i++) {
                        deserializeCase(out, rt, c[i].getBytes(StandardCharsets.UTF_8), d);
                    }
                }
            }
        }
        Files.writeString(dir.resolve("deserialize.txt"), out.toString());
    }

    // ---- csv

    static void csv(Path dir, String version) throws Exception {
        Files.createDirectories(dir);
        StringBuilder out = header(version);
        List<String> all = new ArrayList<>(List.of(SCALARS));
        all.addAll(List.of(CSV_NESTED));
        // field-delimiter, array-element-delimiter, quote (or "" to disable),
        // escape (or ""), null-literal (or "" = unset), scientific decimals
        String[][] optionSets = {
            {",", ";", "\"", "", "", "true"},
            {"|", ",", "'", "\\", "NULL", "true"},
            {";", "|", "", "\\", "n/a", "false"},
            {"\t", ";", "\"", "", "", "false"},
        };
        for (String[] o : optionSets) {
            out.append("options ").append(csvOptions(o)).append('\n');
            for (String t : all) {
                RowType rt = (RowType) LogicalTypeParser.parse("ROW<`f` " + t + ", `g` INT>");
                CsvRowDataSerializationSchema.Builder b = new CsvRowDataSerializationSchema.Builder(rt);
                b.setFieldDelimiter(o[0].charAt(0));
                b.setArrayElementDelimiter(o[1]);
                if (o[2].isEmpty()) b.disableQuoteCharacter(); else b.setQuoteCharacter(o[2].charAt(0));
                if (!o[3].isEmpty()) b.setEscapeCharacter(o[3].charAt(0));
                if (!o[4].isEmpty()) b.setNullLiteral(o[4]);
                b.setWriteBigDecimalInScientificNotation(Boolean.parseBoolean(o[5]));
                CsvRowDataSerializationSchema s = b.build();
                s.open(serCtx());
                for (Object v : values(rt.getTypeAt(0), false)) {
                    serializeCase(out, rt, GenericRowData.of(v, 7), s);
                }
            }
        }
        Files.writeString(dir.resolve("serialize.txt"), out.toString());

        out = header(version);
        String[][] inputs = {
            {"INT", "42,1", " 42 ,1", ",1", "x,1", "1.5,1", "1", "1,2,3"},
            {"STRING", "\"a,b\",1", "\"a\"\"b\",1", "hello,1", ",1", "\"\",1",
                // line breaks inside quotes (one record spanning lines), an
                // unterminated quote, an escaped line break outside quotes
                "\"a\nb\",1", "\"a\r\nb\",1", "\"a\"\"\nb\",1", "\"#a\n#b\",1", "\"a\nb,1", "a\\\nb,1"},
            {"BOOLEAN", "true,1", "TRUE,1", "yes,1"},
            {"DECIMAL(5, 2)", "1.005,1", "123456,1"},
            {"TIMESTAMP(3)", "2020-01-01 12:00:00.123,1", "2020-01-01T12:00:00,1"},
            {"TIMESTAMP_LTZ(3)", "2020-01-01 12:00:00.5Z,1"},
            {"DATE", "2020-02-29,1"},
            {"TIME(3)", "10:11:12,1", "10:11:12.345,1"},
            {"BYTES", "AQI=,1"},
            {"ARRAY<INT>", "1;2;3,1", ",1", "1;;3,1"},
            {"DOUBLE", "NaN,1", "1e3,1"},
        };
        // ignore-parse-errors, allow-comments, escape-character ("" = unset)
        String[][] deserOpts = {{"false", "false", ""}, {"true", "false", ""}, {"false", "true", ""}, {"false", "false", "\\"}};
        for (String[] o : deserOpts) {
            boolean comments = Boolean.parseBoolean(o[1]);
            out.append("options csv.ignore-parse-errors=").append(o[0]).append(" csv.allow-comments=").append(o[1]);
            if (!o[2].isEmpty()) out.append(" csv.escape-character=").append(o[2]);
            out.append('\n');
            for (String[] c : inputs) {
                RowType rt = (RowType) LogicalTypeParser.parse("ROW<`f` " + c[0] + ", `g` INT>");
                CsvRowDataDeserializationSchema.Builder db = new CsvRowDataDeserializationSchema.Builder(rt, InternalTypeInfo.of(rt))
                    .setIgnoreParseErrors(Boolean.parseBoolean(o[0])).setAllowComments(comments);
                if (!o[2].isEmpty()) db.setEscapeCharacter(o[2].charAt(0));
                CsvRowDataDeserializationSchema d = db.build();
                d.open(deserCtx());
                for (int i = 1; i < c.length; i++) {
                    deserializeCase(out, rt, c[i].getBytes(StandardCharsets.UTF_8), d);
                }
                if (comments) {
                    deserializeCase(out, rt, "# comment".getBytes(StandardCharsets.UTF_8), d);
                }
            }
        }
        Files.writeString(dir.resolve("deserialize.txt"), out.toString());

        csvStream(dir, version);
    }

    /**
     * Reads whole files with the reader of Flink's filesystem connector
     * (CsvReaderFormat over a file stream, with the schema that
     * CsvFileFormatFactory builds from the table options): how a file is
     * split into records, including quoted fields that span lines. Each case
     * lists the rows read, then "error" if reading failed, then "end".
     */
    static void csvStream(Path dir, String version) throws Exception {
        StringBuilder out = header(version);
        String[] files = {
            "\"a\nb\",1\n\"c\r\nd\",2\n",
            "\"x\"\"\ny\",1\nplain,2",
            "1a,1\n\n2b,2\r\n",
            "#c \"q\n\"a\nb\",1\n",
            "\"#a\n#b\",1\n",
            "ok,1\n\"a\nb,2\n",
            "a\\\nb,1\n",
            "\"a\\\"\nb\",1\n",
            "\"a\\\nb\",1\n",
            "x,1\r\"y\r\",2\n",
            "x,1\n\"\",2\n",
        };
        // allow-comments, escape-character ("" = unset), ignore-parse-errors
        String[][] optionSets = {{"false", "", "false"}, {"true", "", "false"}, {"false", "\\", "false"}, {"true", "\\", "false"}};
        RowType rt = (RowType) LogicalTypeParser.parse("ROW<`f` STRING, `g` INT>");
        java.lang.reflect.Method build = org.apache.flink.formats.csv.CsvFileFormatFactory.class
            .getDeclaredMethod("buildCsvSchema", RowType.class, org.apache.flink.configuration.ReadableConfig.class);
        build.setAccessible(true);
        for (String[] o : optionSets) {
            out.append("options csv.allow-comments=").append(o[0]);
            if (!o[1].isEmpty()) out.append(" csv.escape-character=").append(o[1]);
            out.append(" csv.ignore-parse-errors=").append(o[2]).append('\n');
            org.apache.flink.configuration.Configuration conf = new org.apache.flink.configuration.Configuration();
            conf.setString("allow-comments", o[0]);
            if (!o[1].isEmpty()) conf.setString("escape-character", o[1]);
            conf.setString("ignore-parse-errors", o[2]);
            final org.apache.flink.shaded.jackson2.com.fasterxml.jackson.dataformat.csv.CsvSchema schema =
                (org.apache.flink.shaded.jackson2.com.fasterxml.jackson.dataformat.csv.CsvSchema) build.invoke(null, rt, conf);
            boolean ignore = Boolean.parseBoolean(o[2]);
            @SuppressWarnings({"unchecked", "rawtypes"})
            org.apache.flink.formats.common.Converter<org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode, Object, Void> conv =
                (org.apache.flink.formats.common.Converter) new org.apache.flink.formats.csv.CsvToRowDataConverters(ignore).createRowConverter(rt, true);
            // As CsvFileFormatFactory's decoder, with the row conversion
            // done here on each record (its constructor is not public).
            org.apache.flink.formats.csv.CsvReaderFormat<org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode> fmt =
                org.apache.flink.formats.csv.CsvReaderFormat.forSchema(
                    org.apache.flink.util.jackson.JacksonMapperFactory::createCsvMapper, m -> schema,
                    org.apache.flink.api.common.typeinfo.TypeInformation.of(org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode.class));
            if (ignore) fmt = fmt.withIgnoreParseErrors();
            for (String f : files) {
                byte[] in = f.getBytes(StandardCharsets.UTF_8);
                out.append("case ").append(rt.asSummaryString()).append('\n');
                out.append("# ").append(f.replace("\n", "\\n").replace("\r", "\\r")).append('\n');
                out.append("input ").append(Base64.getEncoder().encodeToString(in)).append('\n');
                Path tmp = Files.createTempFile("csvstream", ".csv");
                try {
                    Files.write(tmp, in);
                    try (org.apache.flink.connector.file.src.reader.StreamFormat.Reader<org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode> r =
                        fmt.createReader(new org.apache.flink.configuration.Configuration(),
                            new org.apache.flink.core.fs.local.LocalDataInputStream(tmp.toFile()))) {
                        for (org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode n; (n = r.read()) != null; ) {
                            String row = spec((RowData) conv.convert(n, null), rt);
                            out.append("row ").append(row).append('\n');
                        }
                    } catch (Throwable t) {
                        out.append("error ").append(rootCause(t)).append('\n');
                    }
                } finally {
                    Files.delete(tmp);
                }
                out.append("end\n");
            }
        }
        Files.writeString(dir.resolve("stream.txt"), out.toString());
    }

    static String csvOptions(String[] o) {
        StringBuilder b = new StringBuilder();
        b.append("csv.field-delimiter=").append(b64(o[0]));
        b.append(" csv.array-element-delimiter=").append(b64(o[1]));
        if (o[2].isEmpty()) b.append(" csv.disable-quote-character=").append(b64("true"));
        else b.append(" csv.quote-character=").append(b64(o[2]));
        if (!o[3].isEmpty()) b.append(" csv.escape-character=").append(b64(o[3]));
        if (!o[4].isEmpty()) b.append(" csv.null-literal=").append(b64(o[4]));
        b.append(" csv.write-bigdecimal-in-scientific-notation=").append(b64(o[5]));
        return b.toString();
    }

    static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    // ---- cases

    static StringBuilder header(String version) {
        return new StringBuilder("# Generated by tools/flink-formats-gen with Flink ").append(version)
            .append(". Do not edit; run tools/flink-formats-gen/run.sh.\n");
    }

    static void serializeCase(StringBuilder out, RowType rt, RowData row, SerializationSchema<RowData> s) {
        out.append("case ").append(rt.asSummaryString()).append('\n');
        out.append("row ").append(spec(row, rt)).append('\n');
        try {
            byte[] b = s.serialize(row);
            out.append("# ").append(new String(b, StandardCharsets.UTF_8).replace("\n", "\\n").replace("\r", "\\r")).append('\n');
            out.append("bytes ").append(Base64.getEncoder().encodeToString(b)).append('\n');
        } catch (Throwable t) {
            out.append("error ").append(rootCause(t)).append('\n');
        }
    }

    static void deserializeCase(StringBuilder out, RowType rt, byte[] in, DeserializationSchema<RowData> d) {
        out.append("case ").append(rt.asSummaryString()).append('\n');
        out.append("# ").append(new String(in, StandardCharsets.UTF_8).replace("\n", "\\n").replace("\r", "\\r")).append('\n');
        out.append("input ").append(Base64.getEncoder().encodeToString(in)).append('\n');
        try {
            RowData r = d.deserialize(in);
            if (r == null) out.append("skip\n");
            else out.append("row ").append(spec(r, rt)).append('\n');
        } catch (Throwable t) {
            out.append("error ").append(rootCause(t)).append('\n');
        }
    }

    static String rootCause(Throwable t) {
        while (t.getCause() != null && t.getCause() != t) t = t.getCause();
        String m = t.getClass().getSimpleName() + ": " + t.getMessage();
        return m.replace("\n", " ").replace("\r", " ");
    }

    // ---- values

    static List<Object> values(LogicalType t, boolean nulls) {
        List<Object> v = new ArrayList<>();
        switch (t.getTypeRoot()) {
            case BOOLEAN: v.add(true); v.add(false); break;
            case TINYINT: v.add((byte) 0); v.add(Byte.MAX_VALUE); v.add(Byte.MIN_VALUE); break;
            case SMALLINT: v.add((short) 0); v.add(Short.MAX_VALUE); v.add(Short.MIN_VALUE); break;
            case INTEGER: v.add(0); v.add(42); v.add(Integer.MAX_VALUE); v.add(Integer.MIN_VALUE); break;
            case BIGINT: v.add(0L); v.add(Long.MAX_VALUE); v.add(Long.MIN_VALUE); break;
            case FLOAT:
                for (float f : new float[] {0f, -0f, 1.5f, -0.1f, 3.4028235E38f, 1.0E-10f, 1e7f, 9999999f,
                    123456.79f, 0.001f, 1.17549435E-38f, Float.NaN, Float.POSITIVE_INFINITY}) v.add(f);
                break;
            case DOUBLE:
                for (double d : new double[] {0.0, -0.0, 0.1, 1e7, 9999999.0, 1e-3, 9.99e-4, 1e20, 123.456,
                    2.2250738585072014E-308, 1 / 3.0, Double.MAX_VALUE, Double.NaN, Double.POSITIVE_INFINITY,
                    Double.NEGATIVE_INFINITY}) v.add(d);
                break;
            case DECIMAL: {
                DecimalType dt = (DecimalType) t;
                int p = dt.getPrecision(), s = dt.getScale();
                List<BigDecimal> bds = new ArrayList<>();
                bds.add(BigDecimal.ZERO);
                bds.add(BigDecimal.ONE);
                bds.add(new BigDecimal("-1.5"));
                bds.add(BigDecimal.ONE.movePointLeft(s));
                bds.add(BigDecimal.ONE.movePointLeft(s).negate());
                bds.add(new BigDecimal("9".repeat(p)).movePointLeft(s));
                bds.add(new BigDecimal("123456789012345678901234567890.12345678").setScale(Math.min(s, 8), java.math.RoundingMode.DOWN));
                bds.add(new BigDecimal("0.0000001"));
                bds.add(new BigDecimal("100"));
                bds.add(new BigDecimal("1200.50"));
                for (BigDecimal bd : bds) {
                    DecimalData d = DecimalData.fromBigDecimal(bd, p, s);
                    if (d != null) v.add(d);
                }
                break;
            }
            case CHAR: case VARCHAR:
                for (String s : new String[] {"", "abc", "q\"b\\s/", "t\tn\nc\u0001\u001f\u007f", "é中😀",
                    "a,b;c|d", " sp ", "l\r\ne", "'x'", "#h"}) v.add(StringData.fromString(s));
                break;
            case BINARY: case VARBINARY:
                v.add(new byte[0]); v.add(new byte[] {0, 1, 2, (byte) 255}); v.add("hi!?".getBytes(StandardCharsets.UTF_8));
                break;
            case DATE: for (int d : new int[] {0, -1, 18321, -719162, 2932896}) v.add(d); break;
            case TIME_WITHOUT_TIME_ZONE: for (int ms : new int[] {0, 3723000, 86399999, 500}) v.add(ms); break;
            case TIMESTAMP_WITHOUT_TIME_ZONE: case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                int p = t instanceof TimestampType ? ((TimestampType) t).getPrecision() : ((LocalZonedTimestampType) t).getPrecision();
                long[][] ts = {{0, 0}, {1577880000100L, 0}, {1577880000123L, 456789}, {-1, 999999},
                    {253402300799999L, 999999}, {-62135596800000L, 0}};
                for (long[] x : ts) {
                    long nanos = x[0] % 1000 * 1_000_000L + x[1];
                    if (x[0] < 0 && x[0] % 1000 != 0) nanos += 1_000_000_000L;
                    long unit = (long) Math.pow(10, 9 - p);
                    long trunc = nanos - nanos % unit;
                    long ms = Math.floorDiv(x[0], 1000) * 1000 + trunc / 1_000_000L;
                    v.add(TimestampData.fromEpochMillis(ms, (int) (trunc % 1_000_000L)));
                }
                break;
            }
            case ARRAY: {
                LogicalType e = ((ArrayType) t).getElementType();
                List<Object> ev = values(e, false);
                v.add(new GenericArrayData(new Object[0]));
                v.add(new GenericArrayData(new Object[] {ev.get(0)}));
                Object[] three = {ev.get(1 % ev.size()), nulls ? null : ev.get(0), ev.get(ev.size() - 1)};
                v.add(new GenericArrayData(three));
                break;
            }
            case MAP: case MULTISET: {
                LogicalType kt = t instanceof MapType ? ((MapType) t).getKeyType() : ((MultisetType) t).getElementType();
                List<Object> kv = values(kt, false);
                Map<Object, Object> m = new LinkedHashMap<>();
                v.add(new GenericMapData(m));
                m = new LinkedHashMap<>();
                for (int i = 1; i < 4 && i < kv.size(); i++) {
                    m.put(kv.get(i), t instanceof MapType ? (i == 2 ? null : (Object) (i * 1000L)) : (Object) i);
                }
                v.add(new GenericMapData(m));
                Map<Object, Object> withNull = new LinkedHashMap<>();
                withNull.put(kv.get(1), t instanceof MapType ? (Object) 1L : (Object) 1);
                withNull.put(null, t instanceof MapType ? (Object) 2L : (Object) 2);
                v.add(new GenericMapData(withNull));
                break;
            }
            case ROW: {
                RowType rt = (RowType) t;
                List<Object> first = new ArrayList<>(), last = new ArrayList<>();
                for (LogicalType ft : rt.getChildren()) {
                    List<Object> fv = values(ft, false);
                    first.add(fv.get(0));
                    last.add(fv.get(fv.size() - 1));
                }
                v.add(GenericRowData.of(first.toArray()));
                v.add(GenericRowData.of(last.toArray()));
                Object[] withNull = last.toArray();
                withNull[0] = null;
                v.add(GenericRowData.of(withNull));
                break;
            }
            default: throw new IllegalArgumentException("no values for " + t);
        }
        if (nulls) v.add(null);
        return v;
    }

    // ---- value notation read by the Go tests (see formats/internal/flinkgolden)

    static String spec(Object o, LogicalType t) {
        if (o == null) return "null";
        switch (t.getTypeRoot()) {
            case BOOLEAN: return o.toString();
            case TINYINT: case SMALLINT: case INTEGER: case BIGINT: case DATE: case TIME_WITHOUT_TIME_ZONE:
                return "\"" + o + "\"";
            case FLOAT: return "\"f" + Integer.toHexString(Float.floatToRawIntBits((Float) o)) + "\"";
            case DOUBLE: return "\"d" + Long.toHexString(Double.doubleToRawLongBits((Double) o)) + "\"";
            case DECIMAL: {
                BigDecimal bd = ((DecimalData) o).toBigDecimal();
                return "\"" + bd.unscaledValue() + "e" + bd.scale() + "\"";
            }
            case CHAR: case VARCHAR: return "\"" + b64(o.toString()) + "\"";
            case BINARY: case VARBINARY: return "\"" + Base64.getEncoder().encodeToString((byte[]) o) + "\"";
            case TIMESTAMP_WITHOUT_TIME_ZONE: case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                TimestampData ts = (TimestampData) o;
                return "\"" + ts.getMillisecond() + ":" + ts.getNanoOfMillisecond() + "\"";
            }
            case ARRAY: {
                ArrayData a = (ArrayData) o;
                LogicalType e = ((ArrayType) t).getElementType();
                ArrayData.ElementGetter g = ArrayData.createElementGetter(e);
                StringBuilder b = new StringBuilder("[");
                for (int i = 0; i < a.size(); i++) {
                    if (i > 0) b.append(',');
                    b.append(spec(g.getElementOrNull(a, i), e));
                }
                return b.append(']').toString();
            }
            case MAP: case MULTISET: {
                MapData m = (MapData) o;
                LogicalType kt = t instanceof MapType ? ((MapType) t).getKeyType() : ((MultisetType) t).getElementType();
                LogicalType vt = t instanceof MapType ? ((MapType) t).getValueType() : new org.apache.flink.table.types.logical.IntType(false);
                ArrayData.ElementGetter kg = ArrayData.createElementGetter(kt), vg = ArrayData.createElementGetter(vt);
                StringBuilder b = new StringBuilder("[");
                for (int i = 0; i < m.size(); i++) {
                    if (i > 0) b.append(',');
                    b.append('[').append(spec(kg.getElementOrNull(m.keyArray(), i), kt)).append(',')
                        .append(spec(vg.getElementOrNull(m.valueArray(), i), vt)).append(']');
                }
                return b.append(']').toString();
            }
            case ROW: {
                RowData r = (RowData) o;
                RowType rt = (RowType) t;
                StringBuilder b = new StringBuilder("[");
                for (int i = 0; i < rt.getFieldCount(); i++) {
                    if (i > 0) b.append(',');
                    RowData.FieldGetter g = RowData.createFieldGetter(rt.getTypeAt(i), i);
                    b.append(spec(g.getFieldOrNull(r), rt.getTypeAt(i)));
                }
                return b.append(']').toString();
            }
            default: throw new IllegalArgumentException("no notation for " + t);
        }
    }

    static SerializationSchema.InitializationContext serCtx() {
        return new SerializationSchema.InitializationContext() {
            public MetricGroup getMetricGroup() { return new UnregisteredMetricsGroup(); }
            public UserCodeClassLoader getUserCodeClassLoader() { return SimpleUserCodeClassLoader.create(Gen.class.getClassLoader()); }
        };
    }

    static DeserializationSchema.InitializationContext deserCtx() {
        return new DeserializationSchema.InitializationContext() {
            public MetricGroup getMetricGroup() { return new UnregisteredMetricsGroup(); }
            public UserCodeClassLoader getUserCodeClassLoader() { return SimpleUserCodeClassLoader.create(Gen.class.getClassLoader()); }
        };
    }
}
