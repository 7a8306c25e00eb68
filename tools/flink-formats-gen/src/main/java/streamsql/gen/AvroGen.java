package streamsql.gen;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import org.apache.flink.formats.avro.AvroFormatOptions.AvroEncoding;
import org.apache.flink.formats.avro.AvroRowDataDeserializationSchema;
import org.apache.flink.formats.avro.AvroRowDataSerializationSchema;
import org.apache.flink.formats.avro.typeutils.AvroSchemaConverter;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;

/**
 * Writes the golden files of formats/avro with Flink's own flink-avro:
 * AvroRowDataSerializationSchema over the rows of Gen.values (bytes),
 * AvroRowDataDeserializationSchema over those bytes and a few malformed
 * inputs (rows), and AvroSchemaConverter's schema for each row type.
 * Usage: AvroGen REPO_ROOT (see run.sh). The table's row type is NOT NULL,
 * as Flink's planner hands it to the format.
 */
public final class AvroGen {
    static final String[] SCALARS = {
        "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE",
        "DECIMAL(10, 2)", "DECIMAL(38, 10)", "DECIMAL(5, 0)", "DECIMAL(18, 18)",
        "CHAR(3)", "VARCHAR(20)", "STRING", "BINARY(4)", "VARBINARY(10)", "BYTES",
        "DATE", "TIME(0)", "TIME(3)",
        "TIMESTAMP(0)", "TIMESTAMP(3)", "TIMESTAMP(6)", "TIMESTAMP(9)",
        "TIMESTAMP_LTZ(0)", "TIMESTAMP_LTZ(3)", "TIMESTAMP_LTZ(6)",
        "INT NOT NULL", "STRING NOT NULL", "TIMESTAMP(3) NOT NULL",
    };
    static final String[] NESTED = {
        "ARRAY<INT>", "ARRAY<STRING NOT NULL>", "ARRAY<ARRAY<DECIMAL(10, 2)>>",
        "MAP<STRING, BIGINT>", "MAP<STRING NOT NULL, BIGINT>", "MULTISET<STRING>",
        "ROW<`a` INT, `b` STRING, `c` ARRAY<ROW<`x` DOUBLE>>>",
        "ROW<`a` INT NOT NULL, `b` ROW<`c` STRING>> NOT NULL",
    };

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args.length > 0 ? args[0] : ".");
        String version = org.apache.flink.runtime.util.EnvironmentInformation.getVersion();
        Path dir = root.resolve("formats/avro/testdata/flink");
        Files.createDirectories(dir);
        List<String> all = new ArrayList<>(List.of(SCALARS));
        all.addAll(List.of(NESTED));

        StringBuilder ser = Gen.header(version), deser = Gen.header(version), schemas = Gen.header(version);
        schemas.append("# <legacy timestamp mapping> <row type>, then the schema AvroSchemaConverter derives (or its error)\n");
        for (boolean l : new boolean[] {true, false}) {
            legacy = l;
            String opts = "options avro.timestamp_mapping.legacy=" + legacy + "\n";
            ser.append(opts);
            deser.append(opts);
            for (String t : all) {
                RowType rt = (RowType) LogicalTypeParser.parse("ROW<`f` " + t + ", `g` INT>").copy(false);
                schemas.append("type ").append(legacy).append(' ').append(rt.asSummaryString()).append('\n');
                try {
                    String schema = AvroSchemaConverter.convertToSchema(rt, legacy).toString();
                    schemas.append("schema ").append(schema).append('\n');
                } catch (Throwable e) {
                    schemas.append("error ").append(Gen.rootCause(e)).append('\n');
                }
                AvroRowDataSerializationSchema s;
                AvroRowDataDeserializationSchema d;
                try {
                    s = new AvroRowDataSerializationSchema(rt, AvroEncoding.BINARY, legacy);
                    s.open(Gen.serCtx());
                    d = new AvroRowDataDeserializationSchema(rt, InternalTypeInfo.of(rt), AvroEncoding.BINARY, legacy);
                    d.open(Gen.deserCtx());
                } catch (Throwable e) {
                    continue; // no schema: recorded in schemas.txt
                }
                for (Object v : Gen.values(rt.getTypeAt(0), !rt.getTypeAt(0).isNullable() ? false : true)) {
                    GenericRowData row = GenericRowData.of(v, 7);
                    String spec;
                    try {
                        spec = Gen.spec(row, rt);
                    } catch (RuntimeException e) {
                        continue; // a NULL in a NOT NULL nested field: not a row of this type
                    }
                    ser.append("case ").append(rt.asSummaryString()).append('\n');
                    ser.append("row ").append(spec).append('\n');
                    byte[] b;
                    try {
                        b = s.serialize(row);
                    } catch (Throwable e) {
                        ser.append("error ").append(Gen.rootCause(e)).append('\n');
                        // Flink keeps the partial output of a failed record in its
                        // buffer and prepends it to the next one: start afresh.
                        s = new AvroRowDataSerializationSchema(rt, AvroEncoding.BINARY, legacy);
                        s.open(Gen.serCtx());
                        continue;
                    }
                    ser.append("bytes ").append(Base64.getEncoder().encodeToString(b)).append('\n');
                    // Flink reads its own bytes back, and truncated copies.
                    deserCase(deser, rt, b, d);
                    if (b.length > 1) {
                        deserCase(deser, rt, java.util.Arrays.copyOf(b, b.length - 1), d);
                    }
                }
            }
            // Malformed and unusual inputs for ROW<f INT, g INT>.
            RowType rt = (RowType) LogicalTypeParser.parse("ROW<`f` INT, `g` INT>").copy(false);
            AvroRowDataDeserializationSchema d = new AvroRowDataDeserializationSchema(rt, InternalTypeInfo.of(rt), AvroEncoding.BINARY, legacy);
            d.open(Gen.deserCtx());
            byte[][] inputs = {
                {}, {0}, {0, 0}, {2, 2, 2, 4}, {4, 2, 0}, {2, 2, 0, 9, 9}, {3, 2, 0}, {2, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0},
            };
            for (byte[] in : inputs) deserCase(deser, rt, in, d);
            // DECIMAL(5, 2) from bytes wider than its precision.
            rt = (RowType) LogicalTypeParser.parse("ROW<`f` DECIMAL(5, 2)>").copy(false);
            d = new AvroRowDataDeserializationSchema(rt, InternalTypeInfo.of(rt), AvroEncoding.BINARY, legacy);
            d.open(Gen.deserCtx());
            deserCase(deser, rt, new byte[] {2, 6, 0x0f, 0x42, 0x40}, d); // 1000000 unscaled: 10000.00
            deserCase(deser, rt, new byte[] {2, 4, 0x30, 0x39}, d); // 12345: 123.45
            deserCase(deser, rt, new byte[] {2, 0}, d); // empty bytes
        }
        Files.writeString(dir.resolve("serialize.txt"), ser.toString());
        Files.writeString(dir.resolve("deserialize.txt"), deser.toString());
        Files.writeString(dir.resolve("schemas.txt"), schemas.toString());
    }

    static boolean legacy = true;

    static boolean legacyOf(AvroRowDataDeserializationSchema d) { return legacy; }

    static void deserCase(StringBuilder out, RowType rt, byte[] in, AvroRowDataDeserializationSchema d) throws Exception {
        // A fresh deserializer per input: Flink's reuses its decoder's buffer,
        // so bytes left over from a malformed input leak into the next one.
        d = new AvroRowDataDeserializationSchema(rt, InternalTypeInfo.of(rt), AvroEncoding.BINARY, legacyOf(d));
        d.open(Gen.deserCtx());
        out.append("case ").append(rt.asSummaryString()).append('\n');
        out.append("input ").append(Base64.getEncoder().encodeToString(in)).append('\n');
        try {
            Object r = d.deserialize(in);
            if (r == null) out.append("skip\n");
            else out.append("row ").append(Gen.spec(r, rt)).append('\n');
        } catch (Throwable t) {
            out.append("error ").append(Gen.rootCause(t)).append('\n');
        }
    }
}
