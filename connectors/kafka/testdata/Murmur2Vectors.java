// Produces testdata/murmur2.txt from Apache Kafka's own client (kafka-clients 4.1.1):
// each line: hex(key) murmur2(key) (unsigned) and the partition the Java producer's
// built-in partitioner picks for 1, 3, 7, 12 and 100 partitions ("-" = empty key).
// Run once:  javac -cp "$LIBS/*" Murmur2Vectors.java && java -cp "$LIBS/*:." Murmur2Vectors > murmur2.txt
// with LIBS=~/.cache/streamsql/kafka-4.1.1/libs (scripts/kafka.sh fetch).
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import java.nio.charset.StandardCharsets;
public class Murmur2Vectors {
  public static void main(String[] a) {
    String[] keys = {"", "a", "ab", "abc", "abcd", "abcde", "21", "foobar", "a-little-bit-long-string",
      "a-little-bit-longer-string", "a-little-bit-long-string-with-some-non-ascii-Ä-ø", "user-0", "user-1", "user-42",
      "order:123456789", "lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", "\u00e9\u4e2d\u6587"};
    int[] ns = {1, 3, 7, 12, 100};
    for (String k : keys) {
      byte[] b = k.getBytes(StandardCharsets.UTF_8);
      StringBuilder sb = new StringBuilder();
      sb.append(b.length == 0 ? "-" : java.util.HexFormat.of().formatHex(b)).append(' ').append(Integer.toUnsignedString(Utils.murmur2(b)));
      for (int n : ns) sb.append(' ').append(BuiltInPartitioner.partitionForKey(b, n));
      System.out.println(sb);
    }
  }
}
