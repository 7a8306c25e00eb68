// Generates internal/javafmt/testdata/java_tostring.tsv: how Java's toString
// prints the external classes Flink uses for each SQL type, which is what
// Flink's print connector shows. Run from the repository root with Java 17:
//
//   java internal/javafmt/testdata/gen/JavaToString.java > internal/javafmt/testdata/java_tostring.tsv
//
// Each line is: kind TAB input TAB Java's output.
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;

public class JavaToString {
    public static void main(String[] args) {
        String[] doubles = {"0", "-0", "1", "-1.5", "100", "0.001", "0.0001", "1234567", "9999999",
            "10000000", "1e10", "1.5e-4", "3.141592653589793", "0.1", "1e21", "1e-7", "123456.789",
            "2.5e-300", "1.7976931348623157e308", "4.9e-324", "NaN", "Infinity", "-Infinity"};
        for (String s : doubles) {
            System.out.println("double\t" + s + "\t" + Double.toString(Double.parseDouble(s)));
        }
        String[] floats = {"0", "1", "-1.5", "0.1", "3.14159", "1e10", "1.5e-4", "1234567", "16777216", "1e-3"};
        for (String s : floats) {
            System.out.println("float\t" + s + "\t" + Float.toString(Float.parseFloat(s)));
        }
        // SQL DECIMAL(p, s) values never have a negative scale, so no "1E+3".
        String[] decimals = {"0", "0.00", "12.50", "-12.50", "0.000001", "0.0000001", "0.00000010",
            "123456789012345678901234567890.12345678", "-0.0000000001", "100"};
        for (String s : decimals) {
            System.out.println("decimal\t" + s + "\t" + new BigDecimal(s).toString());
        }
        // epoch seconds, nano adjustment
        long[][] instants = {{0, 0}, {1700000000, 0}, {1700000040, 0}, {1700000000, 123000000},
            {1700000000, 123456000}, {1700000000, 123456789}, {-1, 500000000}, {253402300799L, 0},
            {951782400, 0}};
        for (long[] in : instants) {
            Instant i = Instant.ofEpochSecond(in[0], in[1]);
            System.out.println("instant\t" + in[0] + "," + in[1] + "\t" + i);
            System.out.println("localdatetime\t" + in[0] + "," + in[1] + "\t" + LocalDateTime.ofInstant(i, ZoneOffset.UTC));
            System.out.println("localdate\t" + in[0] + "," + in[1] + "\t" + LocalDateTime.ofInstant(i, ZoneOffset.UTC).toLocalDate());
        }
        long[] nanosOfDay = {0, 3600_000_000_000L, 3661_000_000_000L, 3661_500_000_000L, 3661_000_001_000L, 86399_999_999_999L};
        for (long n : nanosOfDay) {
            System.out.println("localtime\t" + n + "\t" + LocalTime.ofNanoOfDay(n));
        }
    }
}
