package com.github.nexmark.flink.udf;

import org.apache.flink.table.functions.ScalarFunction;

/**
 * The scalar function Nexmark's q14 binds with CREATE FUNCTION count_char AS
 * 'com.github.nexmark.flink.udf.CountChar': how many times the first character
 * of {@code character} occurs in {@code s} (0 for a NULL {@code s}). The public
 * suite's class is in its own jar, which is not on Maven Central, so the
 * runner carries this implementation of it under the name the query file uses
 * (streamsql's is connectors/nexmark's CountChar).
 */
public class CountChar extends ScalarFunction {
    public long eval(String s, String character) {
        if (s == null || character == null || character.isEmpty()) {
            return 0;
        }
        int c = character.codePointAt(0);
        return s.codePoints().filter(x -> x == c).count();
    }
}
