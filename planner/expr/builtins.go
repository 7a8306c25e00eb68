package expr

import (
	"math"

	"github.com/streamsql/streamsql/types"
)

// builtins is the function library: every scalar function and operator
// the planner resolves, in one table. To add a function, write its check
// (typing) and build (evaluator) beside its relatives in the fn_*.go or
// ops.go file, add one line here, and add a golden case
// (golden_cases_test.go; TestEveryFunctionHasGoldenCases fails until
// there is one). Names are upper case; operators are registered under
// their SQL spelling.
var builtins = []*funcDef{
	// Arithmetic (ops.go).
	{name: "+", minArgs: 2, maxArgs: 2, expected: "(NUMERIC + NUMERIC)", check: checkArithmetic, build: buildArithmetic},
	{name: "-", minArgs: 2, maxArgs: 2, expected: "(NUMERIC - NUMERIC)", check: checkArithmetic, build: buildArithmetic},
	{name: "*", minArgs: 2, maxArgs: 2, expected: "(NUMERIC * NUMERIC)", check: checkArithmetic, build: buildArithmetic},
	{name: "/", minArgs: 2, maxArgs: 2, expected: "(NUMERIC / NUMERIC)", check: checkArithmetic, build: buildArithmetic},
	{name: "%", minArgs: 2, maxArgs: 2, expected: "MOD(EXACT_NUMERIC, EXACT_NUMERIC)", check: checkArithmetic, build: buildArithmetic},
	{name: "NEGATE", minArgs: 1, maxArgs: 1, expected: "-NUMERIC", check: checkNegate, build: buildNegate},

	// Comparison, logic, NULL tests, ranges and membership (ops.go,
	// fn_similar.go).
	{name: "=", minArgs: 2, maxArgs: 2, expected: "two comparable values", check: checkComparison, build: buildComparison},
	{name: "<>", minArgs: 2, maxArgs: 2, expected: "two comparable values", check: checkComparison, build: buildComparison},
	{name: "<", minArgs: 2, maxArgs: 2, expected: "two comparable values", check: checkComparison, build: buildComparison},
	{name: "<=", minArgs: 2, maxArgs: 2, expected: "two comparable values", check: checkComparison, build: buildComparison},
	{name: ">", minArgs: 2, maxArgs: 2, expected: "two comparable values", check: checkComparison, build: buildComparison},
	{name: ">=", minArgs: 2, maxArgs: 2, expected: "two comparable values", check: checkComparison, build: buildComparison},
	{name: "AND", minArgs: 2, maxArgs: -1, expected: "BOOLEAN AND BOOLEAN", check: checkBoolean, build: buildAnd},
	{name: "OR", minArgs: 2, maxArgs: -1, expected: "BOOLEAN OR BOOLEAN", check: checkBoolean, build: buildOr},
	{name: "NOT", minArgs: 1, maxArgs: 1, expected: "NOT BOOLEAN", check: checkBoolean, build: buildNot},
	{name: "IS NULL", minArgs: 1, maxArgs: 1, expected: "any value", check: checkIsNull, build: buildIsNull(false)},
	{name: "IS NOT NULL", minArgs: 1, maxArgs: 1, expected: "any value", check: checkIsNull, build: buildIsNull(true)},
	{name: "IS TRUE", minArgs: 1, maxArgs: 1, expected: "BOOLEAN", check: checkIsBool, build: buildIsBool(true, false)},
	{name: "IS NOT TRUE", minArgs: 1, maxArgs: 1, expected: "BOOLEAN", check: checkIsBool, build: buildIsBool(true, true)},
	{name: "IS FALSE", minArgs: 1, maxArgs: 1, expected: "BOOLEAN", check: checkIsBool, build: buildIsBool(false, false)},
	{name: "IS NOT FALSE", minArgs: 1, maxArgs: 1, expected: "BOOLEAN", check: checkIsBool, build: buildIsBool(false, true)},
	{name: "IS DISTINCT FROM", minArgs: 2, maxArgs: 2, expected: "two comparable values", check: checkDistinct, build: buildDistinct(true)},
	{name: "IS NOT DISTINCT FROM", minArgs: 2, maxArgs: 2, expected: "two comparable values", check: checkDistinct, build: buildDistinct(false)},
	{name: "BETWEEN", minArgs: 3, maxArgs: 3, expected: "x BETWEEN low AND high, all comparable", check: checkBetween, build: buildBetween(false)},
	{name: "NOT BETWEEN", minArgs: 3, maxArgs: 3, expected: "x NOT BETWEEN low AND high, all comparable", check: checkBetween, build: buildBetween(true)},
	{name: "BETWEEN SYMMETRIC", minArgs: 3, maxArgs: 3, expected: "x BETWEEN SYMMETRIC a AND b, all comparable", check: checkBetween, build: buildBetweenSymmetric(false)},
	{name: "NOT BETWEEN SYMMETRIC", minArgs: 3, maxArgs: 3, expected: "x NOT BETWEEN SYMMETRIC a AND b, all comparable", check: checkBetween, build: buildBetweenSymmetric(true)},
	{name: "IN", minArgs: 2, maxArgs: -1, expected: "x IN (values comparable with x)", check: checkIn, build: buildIn(false)},
	{name: "NOT IN", minArgs: 2, maxArgs: -1, expected: "x NOT IN (values comparable with x)", check: checkIn, build: buildIn(true)},

	// Pattern matching (fn_strings.go, fn_similar.go; translation in
	// internal/sqlregex).
	{name: "LIKE", minArgs: 2, maxArgs: 3, expected: "STRING LIKE STRING [ESCAPE CHAR]", check: checkLike, build: buildLike(false)},
	{name: "NOT LIKE", minArgs: 2, maxArgs: 3, expected: "STRING NOT LIKE STRING [ESCAPE CHAR]", check: checkLike, build: buildLike(true)},
	{name: "SIMILAR TO", minArgs: 2, maxArgs: 3, expected: "STRING SIMILAR TO STRING [ESCAPE CHAR]", check: checkLike, build: buildSimilar(false)},
	{name: "NOT SIMILAR TO", minArgs: 2, maxArgs: 3, expected: "STRING NOT SIMILAR TO STRING [ESCAPE CHAR]", check: checkLike, build: buildSimilar(true)},

	// Access to collections and rows (ops.go).
	{name: "||", minArgs: 2, maxArgs: 2, expected: "STRING || STRING", check: checkConcatOp, build: buildConcat},
	{name: "ITEM", minArgs: 2, maxArgs: 2, expected: "ARRAY[INT], MAP[KEY] or ROW[INT literal]", check: checkItem, build: buildItem},
	{name: "FIELD", minArgs: 2, maxArgs: 2, expected: "ROW.field (a ROW and a field-name literal)", check: checkField, build: buildField},

	// Conditional and numeric functions (fn_math.go).
	{name: "COALESCE", minArgs: 1, maxArgs: -1, expected: "COALESCE(values of a common type)", check: checkCoalesce, build: buildCoalesce},
	{name: "NULLIF", minArgs: 2, maxArgs: 2, expected: "NULLIF(a, b) with comparable a and b", check: checkNullIf, build: buildNullIf},
	{name: "IF", minArgs: 3, maxArgs: 3, expected: "IF(BOOLEAN, a, b) with a and b of a common type", check: checkIf, build: buildIf},
	{name: "GREATEST", minArgs: 1, maxArgs: -1, expected: "GREATEST(comparable values of a common type)", check: checkGreatest, build: buildGreatest(true)},
	{name: "LEAST", minArgs: 1, maxArgs: -1, expected: "LEAST(comparable values of a common type)", check: checkGreatest, build: buildGreatest(false)},
	{name: "ABS", minArgs: 1, maxArgs: 1, expected: "ABS(NUMERIC)", check: checkSameNumeric, build: buildAbs},
	{name: "ROUND", minArgs: 1, maxArgs: 2, expected: "ROUND(NUMERIC [, INT])", check: checkRound, build: buildRound},
	{name: "FLOOR", minArgs: 1, maxArgs: 1, expected: "FLOOR(NUMERIC) or FLOOR(datetime TO unit)", check: checkFloorCeil, build: buildFloorCeil(false)},
	{name: "CEIL", minArgs: 1, maxArgs: 1, expected: "CEIL(NUMERIC) or CEIL(datetime TO unit)", check: checkFloorCeil, build: buildFloorCeil(true)},
	{name: "POWER", minArgs: 2, maxArgs: 2, expected: "POWER(NUMERIC, NUMERIC)", check: checkDoubleFn, build: buildDoubleFn(math.Pow)},
	{name: "SQRT", minArgs: 1, maxArgs: 1, expected: "SQRT(NUMERIC)", check: checkDoubleFn, build: buildDoubleFn(func(a, _ float64) float64 { return math.Sqrt(a) })},
	{name: "SIGN", minArgs: 1, maxArgs: 1, expected: "SIGN(NUMERIC)", check: checkSameNumeric, build: buildSign},
	{name: "LN", minArgs: 1, maxArgs: 1, expected: "LN(NUMERIC)", check: checkDoubleFn, build: unaryMath(math.Log)},
	{name: "LOG10", minArgs: 1, maxArgs: 1, expected: "LOG10(NUMERIC)", check: checkDoubleFn, build: unaryMath(math.Log10)},
	{name: "LOG2", minArgs: 1, maxArgs: 1, expected: "LOG2(NUMERIC)", check: checkDoubleFn, build: unaryMath(func(x float64) float64 { return math.Log(x) / math.Log(2) })},
	{name: "LOG", minArgs: 1, maxArgs: 2, expected: "LOG(NUMERIC) or LOG(NUMERIC base, NUMERIC)", check: checkDoubleFn, build: buildLog},
	{name: "EXP", minArgs: 1, maxArgs: 1, expected: "EXP(NUMERIC)", check: checkDoubleFn, build: unaryMath(math.Exp)},
	{name: "SIN", minArgs: 1, maxArgs: 1, expected: "SIN(NUMERIC)", check: checkDoubleFn, build: unaryMath(math.Sin)},
	{name: "COS", minArgs: 1, maxArgs: 1, expected: "COS(NUMERIC)", check: checkDoubleFn, build: unaryMath(math.Cos)},
	{name: "TAN", minArgs: 1, maxArgs: 1, expected: "TAN(NUMERIC)", check: checkDoubleFn, build: unaryMath(math.Tan)},
	{name: "COT", minArgs: 1, maxArgs: 1, expected: "COT(NUMERIC)", check: checkDoubleFn, build: unaryMath(func(x float64) float64 { return 1 / math.Tan(x) })},
	{name: "ASIN", minArgs: 1, maxArgs: 1, expected: "ASIN(NUMERIC)", check: checkDoubleFn, build: unaryMath(math.Asin)},
	{name: "ACOS", minArgs: 1, maxArgs: 1, expected: "ACOS(NUMERIC)", check: checkDoubleFn, build: unaryMath(math.Acos)},
	{name: "ATAN", minArgs: 1, maxArgs: 1, expected: "ATAN(NUMERIC)", check: checkDoubleFn, build: unaryMath(math.Atan)},
	{name: "ATAN2", minArgs: 2, maxArgs: 2, expected: "ATAN2(NUMERIC, NUMERIC)", check: checkDoubleFn, build: buildDoubleFn(math.Atan2)},
	{name: "SINH", minArgs: 1, maxArgs: 1, expected: "SINH(NUMERIC)", check: checkDoubleFn, build: unaryMath(math.Sinh)},
	{name: "COSH", minArgs: 1, maxArgs: 1, expected: "COSH(NUMERIC)", check: checkDoubleFn, build: unaryMath(math.Cosh)},
	{name: "TANH", minArgs: 1, maxArgs: 1, expected: "TANH(NUMERIC)", check: checkDoubleFn, build: unaryMath(math.Tanh)},
	{name: "DEGREES", minArgs: 1, maxArgs: 1, expected: "DEGREES(NUMERIC)", check: checkDoubleFn, build: unaryMath(func(x float64) float64 { return x * 180 / math.Pi })},
	{name: "RADIANS", minArgs: 1, maxArgs: 1, expected: "RADIANS(NUMERIC)", check: checkDoubleFn, build: unaryMath(func(x float64) float64 { return x / 180 * math.Pi })},
	{name: "PI", minArgs: 0, maxArgs: 0, expected: "PI()", check: checkDoubleFn, build: buildConstDouble(math.Pi)},
	{name: "E", minArgs: 0, maxArgs: 0, expected: "E()", check: checkDoubleFn, build: buildConstDouble(math.E)},
	{name: "IFNULL", minArgs: 2, maxArgs: 2, expected: "IFNULL(value, replacement) of a common type", check: checkIfNull, build: buildIfNull},

	// String functions (fn_strings.go).
	{name: "UPPER", minArgs: 1, maxArgs: 1, expected: "UPPER(STRING)", check: checkSameString, build: mapString(javaUpper)},
	{name: "LOWER", minArgs: 1, maxArgs: 1, expected: "LOWER(STRING)", check: checkSameString, build: mapString(javaLower)},
	{name: "TRIM", minArgs: 1, maxArgs: 2, expected: "TRIM([BOTH] [STRING FROM] STRING)", check: checkTrim, build: buildTrim(true, true)},
	{name: "LTRIM", minArgs: 1, maxArgs: 2, expected: "LTRIM(STRING) or TRIM(LEADING [STRING] FROM STRING)", check: checkTrim, build: buildTrim(true, false)},
	{name: "RTRIM", minArgs: 1, maxArgs: 2, expected: "RTRIM(STRING) or TRIM(TRAILING [STRING] FROM STRING)", check: checkTrim, build: buildTrim(false, true)},
	{name: "CONCAT", minArgs: 1, maxArgs: -1, expected: "CONCAT(STRING, ...)", check: checkConcat, build: buildConcat},
	{name: "CONCAT_WS", minArgs: 1, maxArgs: -1, expected: "CONCAT_WS(STRING separator, STRING, ...)", check: checkConcat, build: buildConcatWS},
	{name: "SUBSTRING", minArgs: 2, maxArgs: 3, expected: "SUBSTRING(STRING FROM INT [FOR INT])", check: checkSubstring, build: buildSubstring},
	{name: "REPLACE", minArgs: 3, maxArgs: 3, expected: "REPLACE(STRING, STRING, STRING)", check: checkStrings(types.String()), build: buildReplace},
	{name: "CHAR_LENGTH", minArgs: 1, maxArgs: 1, expected: "CHAR_LENGTH(STRING)", check: checkStrings(types.Int()), build: buildCharLength},
	{name: "POSITION", minArgs: 2, maxArgs: 2, expected: "POSITION(STRING IN STRING)", check: checkStrings(types.Int()), build: buildPosition},
	{name: "LPAD", minArgs: 3, maxArgs: 3, expected: "LPAD(STRING, INT, STRING)", check: checkPad, build: buildPad(true)},
	{name: "RPAD", minArgs: 3, maxArgs: 3, expected: "RPAD(STRING, INT, STRING)", check: checkPad, build: buildPad(false)},
	{name: "REGEXP_REPLACE", minArgs: 3, maxArgs: 3, expected: "REGEXP_REPLACE(STRING, STRING regex, STRING replacement)", check: checkStrings(types.String()), build: buildRegexpReplace},
	{name: "REGEXP_EXTRACT", minArgs: 2, maxArgs: 3, expected: "REGEXP_EXTRACT(STRING, STRING regex [, INT group])", check: checkRegexpExtract, build: buildRegexpExtract},
	{name: "SPLIT_INDEX", minArgs: 3, maxArgs: 3, expected: "SPLIT_INDEX(STRING, STRING delimiter, INT index)", check: checkSplitIndex, build: buildSplitIndex},
	{name: "MD5", minArgs: 1, maxArgs: 1, expected: "MD5(STRING)", check: checkHash(32), build: buildHash(md5Hex)},
	{name: "SHA256", minArgs: 1, maxArgs: 1, expected: "SHA256(STRING)", check: checkHash(64), build: buildHash(sha256Hex)},
	{name: "INITCAP", minArgs: 1, maxArgs: 1, expected: "INITCAP(STRING)", check: checkSameString, build: mapString(initcap)},
	{name: "REPEAT", minArgs: 2, maxArgs: 2, expected: "REPEAT(STRING, INT)", check: checkStringInt(types.String()), build: buildRepeat},
	{name: "REVERSE", minArgs: 1, maxArgs: 1, expected: "REVERSE(STRING)", check: checkReverse, build: mapString(reverseString)},
	{name: "LEFT", minArgs: 2, maxArgs: 2, expected: "LEFT(STRING, INT)", check: checkLeftRight, build: buildLeftRight(true)},
	{name: "RIGHT", minArgs: 2, maxArgs: 2, expected: "RIGHT(STRING, INT)", check: checkLeftRight, build: buildLeftRight(false)},
	{name: "LOCATE", minArgs: 2, maxArgs: 3, expected: "LOCATE(STRING, STRING [, INT])", check: checkLocate, build: buildLocate},
	{name: "ASCII", minArgs: 1, maxArgs: 1, expected: "ASCII(STRING)", check: checkStrings(types.Int()), build: buildASCII},
	{name: "CHR", minArgs: 1, maxArgs: 1, expected: "CHR(INT)", check: checkChr, build: buildChr},
	{name: "SPLIT", minArgs: 2, maxArgs: 2, expected: "SPLIT(STRING, STRING delimiter)", check: checkSplit, build: buildSplit},
	{name: "STR_TO_MAP", minArgs: 1, maxArgs: 3, expected: "STR_TO_MAP(STRING [, STRING list delimiter, STRING key-value delimiter])", check: checkStrToMap, build: buildStrToMap},
	{name: "INSTR", minArgs: 2, maxArgs: 2, expected: "INSTR(STRING, STRING)", check: checkStrings(types.Int()), build: buildInstr},
	{name: "STARTSWITH", minArgs: 2, maxArgs: 2, expected: "STARTSWITH(STRING, STRING)", check: checkStrings(types.Boolean()), build: buildStartsEnds(true)},
	{name: "ENDSWITH", minArgs: 2, maxArgs: 2, expected: "ENDSWITH(STRING, STRING)", check: checkStrings(types.Boolean()), build: buildStartsEnds(false)},
	{name: "BTRIM", minArgs: 1, maxArgs: 2, expected: "BTRIM(STRING [, STRING characters])", check: checkStrings(types.String()), build: buildBTrim},
	{name: "TO_BASE64", minArgs: 1, maxArgs: 1, expected: "TO_BASE64(STRING)", check: checkStrings(types.String()), build: buildToBase64},
	{name: "FROM_BASE64", minArgs: 1, maxArgs: 1, expected: "FROM_BASE64(STRING)", check: checkStrings(types.String()), build: buildFromBase64},
	{name: "SHA1", minArgs: 1, maxArgs: 1, expected: "SHA1(STRING)", check: checkHash(40), build: buildHash(sha1Hex)},
	{name: "SHA224", minArgs: 1, maxArgs: 1, expected: "SHA224(STRING)", check: checkHash(56), build: buildHash(sha224Hex)},
	{name: "SHA384", minArgs: 1, maxArgs: 1, expected: "SHA384(STRING)", check: checkHash(96), build: buildHash(sha384Hex)},
	{name: "SHA512", minArgs: 1, maxArgs: 1, expected: "SHA512(STRING)", check: checkHash(128), build: buildHash(sha512Hex)},
	{name: "SHA2", minArgs: 2, maxArgs: 2, expected: "SHA2(STRING, INT bits)", check: checkSHA2, build: buildSHA2},
	{name: "URL_ENCODE", minArgs: 1, maxArgs: 1, expected: "URL_ENCODE(STRING)", check: checkStringsNullable(types.String()), build: buildURLEncode},
	{name: "URL_DECODE", minArgs: 1, maxArgs: 1, expected: "URL_DECODE(STRING)", check: checkStringsNullable(types.String()), build: buildURLDecode},
	{name: "REGEXP", minArgs: 2, maxArgs: 2, expected: "REGEXP(STRING, STRING regex)", check: checkStrings(types.Boolean()), build: buildRegexp},
	{name: "REGEXP_COUNT", minArgs: 2, maxArgs: 2, expected: "REGEXP_COUNT(STRING, STRING regex)", check: checkStringsNullable(types.Int()), build: buildRegexpCount},
	{name: "UUID", minArgs: 0, maxArgs: 0, expected: "UUID()", nonDeterministic: true, check: checkUUID, build: buildUUID},

	// Date and time functions (fn_time.go; Java patterns and the calendar
	// in internal/javatime).
	{name: "CURRENT_TIMESTAMP", minArgs: 0, maxArgs: 0, expected: "CURRENT_TIMESTAMP", nonDeterministic: true, check: checkCurrentTimestamp, build: buildCurrentTimestamp},
	{name: "LOCALTIMESTAMP", minArgs: 0, maxArgs: 0, expected: "LOCALTIMESTAMP", nonDeterministic: true, check: checkLocalTimestamp, build: buildLocalTimestamp},
	{name: "CURRENT_DATE", minArgs: 0, maxArgs: 0, expected: "CURRENT_DATE", nonDeterministic: true, check: checkCurrentDate, build: buildCurrentDate},
	{name: "DATE_FORMAT", minArgs: 2, maxArgs: 2, expected: "DATE_FORMAT(TIMESTAMP|STRING, STRING format)", check: checkDateFormat, build: buildDateFormat},
	{name: "TO_TIMESTAMP", minArgs: 1, maxArgs: 2, expected: "TO_TIMESTAMP(STRING [, STRING format])", check: checkToTimestamp, build: buildToTimestamp(false)},
	{name: "TO_TIMESTAMP_LTZ", minArgs: 2, maxArgs: 2, expected: "TO_TIMESTAMP_LTZ(NUMERIC, INT precision 0 or 3)", check: checkToTimestampLTZ, build: buildToTimestampLTZ},
	{name: "FROM_UNIXTIME", minArgs: 1, maxArgs: 2, expected: "FROM_UNIXTIME(BIGINT [, STRING format])", check: checkFromUnixtime, build: buildFromUnixtime},
	// UNIX_TIMESTAMP(s) is deterministic; only the no-argument form reads
	// the clock. isConstant treats the whole function as non-deterministic,
	// which only forgoes folding of constant arguments.
	{name: "UNIX_TIMESTAMP", minArgs: 0, maxArgs: 2, expected: "UNIX_TIMESTAMP() or UNIX_TIMESTAMP(STRING [, STRING format])", nonDeterministic: true, check: checkUnixTimestamp, build: buildUnixTimestamp},
	{name: "TO_DATE", minArgs: 1, maxArgs: 2, expected: "TO_DATE(STRING [, STRING format])", check: checkToDate, build: buildToDate},
	{name: "CONVERT_TZ", minArgs: 3, maxArgs: 3, expected: "CONVERT_TZ(STRING, STRING zone from, STRING zone to)", check: checkStringsNullable(types.String()), build: buildConvertTZ},
	{name: "EXTRACT", minArgs: 1, maxArgs: 1, expected: "EXTRACT(unit FROM DATE|TIME|TIMESTAMP)", check: checkExtract, build: buildExtract},
	{name: "TIMESTAMPADD", minArgs: 2, maxArgs: 2, expected: "TIMESTAMPADD(unit, INT, DATE|TIMESTAMP)", check: checkTimestampAdd, build: buildTimestampAdd},
	{name: "TIMESTAMPDIFF", minArgs: 2, maxArgs: 2, expected: "TIMESTAMPDIFF(unit, DATE|TIMESTAMP, DATE|TIMESTAMP)", check: checkTimestampDiff, build: buildTimestampDiff},

	// JSON functions (fn_json.go; paths in internal/jsonpath).
	{name: "JSON_VALUE", minArgs: 2, maxArgs: 2, expected: "JSON_VALUE(STRING json, STRING path [RETURNING type])", check: checkJSONValue, build: buildJSONValue},
	{name: "JSON_QUERY", minArgs: 2, maxArgs: 2, expected: "JSON_QUERY(STRING json, STRING path)", check: checkStringsNullable(types.String()), build: buildJSON(jsonQuery)},
	{name: "IS JSON VALUE", minArgs: 1, maxArgs: 1, expected: "STRING IS JSON [VALUE]", check: checkIsJSON, build: buildIsJSON(0)},
	{name: "IS JSON SCALAR", minArgs: 1, maxArgs: 1, expected: "STRING IS JSON SCALAR", check: checkIsJSON, build: buildIsJSON('s')},
	{name: "IS JSON ARRAY", minArgs: 1, maxArgs: 1, expected: "STRING IS JSON ARRAY", check: checkIsJSON, build: buildIsJSON('[')},
	{name: "IS JSON OBJECT", minArgs: 1, maxArgs: 1, expected: "STRING IS JSON OBJECT", check: checkIsJSON, build: buildIsJSON('{')},
	{name: "JSON_OBJECT", minArgs: 0, maxArgs: -1, expected: "JSON_OBJECT([KEY] STRING literal VALUE value, ... [NULL | ABSENT ON NULL])", check: checkJSONObject, build: buildJSONObject(false)},
	{name: JSONObjectAbsent, minArgs: 0, maxArgs: -1, expected: "JSON_OBJECT([KEY] STRING literal VALUE value, ... ABSENT ON NULL)", check: checkJSONObject, build: buildJSONObject(true)},
	{name: "JSON_ARRAY", minArgs: 0, maxArgs: -1, expected: "JSON_ARRAY(value, ... [NULL | ABSENT ON NULL])", check: checkJSONArray, build: buildJSONArray(false)},
	{name: JSONArrayNull, minArgs: 0, maxArgs: -1, expected: "JSON_ARRAY(value, ... NULL ON NULL)", check: checkJSONArray, build: buildJSONArray(true)},
	{name: "JSON_QUOTE", minArgs: 1, maxArgs: 1, expected: "JSON_QUOTE(STRING)", check: checkStringsNullable(types.String()), build: buildJSONQuote},
	{name: "JSON_STRING", minArgs: 1, maxArgs: 1, expected: "JSON_STRING(value)", check: checkJSONString, build: buildJSONString},
	{name: "JSON_EXISTS", minArgs: 2, maxArgs: 2, expected: "JSON_EXISTS(STRING json, STRING path)", check: checkStringsNullable(types.Boolean()), build: buildJSON(jsonExists)},

	// Value constructors and collection functions (fn_ctor.go).
	{name: "ARRAY", minArgs: 0, maxArgs: -1, expected: "ARRAY[value, ...]", check: checkArray, build: buildList},
	{name: "MAP", minArgs: 0, maxArgs: -1, expected: "MAP[key, value, ...]", check: checkMap, build: buildMap},
	{name: "ROW", minArgs: 0, maxArgs: -1, expected: "ROW(value, ...)", check: checkRow, build: buildList},
	{name: "CARDINALITY", minArgs: 1, maxArgs: 1, expected: "CARDINALITY(ARRAY | MAP | MULTISET)", check: checkCardinality, build: buildCardinality},
	{name: "ELEMENT", minArgs: 1, maxArgs: 1, expected: "ELEMENT(ARRAY)", check: checkElement, build: buildElement},
	{name: "ARRAY_CONTAINS", minArgs: 2, maxArgs: 2, expected: "ARRAY_CONTAINS(ARRAY, element)", check: checkArrayContains, build: buildArrayContains},
	{name: "ARRAY_POSITION", minArgs: 2, maxArgs: 2, expected: "ARRAY_POSITION(ARRAY, element)", check: checkArrayPosition, build: buildArrayPosition},
	{name: "ARRAY_REMOVE", minArgs: 2, maxArgs: 2, expected: "ARRAY_REMOVE(ARRAY, element)", check: checkArrayRemove, build: buildArrayRemove},
	{name: "ARRAY_DISTINCT", minArgs: 1, maxArgs: 1, expected: "ARRAY_DISTINCT(ARRAY)", check: checkSameArray, build: buildArrayDistinct},
	{name: "ARRAY_REVERSE", minArgs: 1, maxArgs: 1, expected: "ARRAY_REVERSE(ARRAY)", check: checkSameArray, build: buildArrayReverse},
	{name: "ARRAY_MAX", minArgs: 1, maxArgs: 1, expected: "ARRAY_MAX(ARRAY)", check: checkArrayMinMax, build: buildArrayMinMax(true)},
	{name: "ARRAY_MIN", minArgs: 1, maxArgs: 1, expected: "ARRAY_MIN(ARRAY)", check: checkArrayMinMax, build: buildArrayMinMax(false)},
	{name: "ARRAY_SLICE", minArgs: 2, maxArgs: 3, expected: "ARRAY_SLICE(ARRAY, INT start [, INT end])", check: checkArraySlice, build: buildArraySlice},
	{name: "ARRAY_CONCAT", minArgs: 1, maxArgs: -1, expected: "ARRAY_CONCAT(ARRAY, ...)", check: checkArrayConcat, build: buildArrayConcat},
	{name: "ARRAY_JOIN", minArgs: 2, maxArgs: 3, expected: "ARRAY_JOIN(ARRAY<STRING>, STRING delimiter [, STRING null replacement])", check: checkArrayJoin, build: buildArrayJoin},
	{name: "MAP_KEYS", minArgs: 1, maxArgs: 1, expected: "MAP_KEYS(MAP)", check: checkMapPart(true), build: buildMapPart(true)},
	{name: "MAP_VALUES", minArgs: 1, maxArgs: 1, expected: "MAP_VALUES(MAP)", check: checkMapPart(false), build: buildMapPart(false)},
	{name: "ARRAY_APPEND", minArgs: 2, maxArgs: 2, expected: "ARRAY_APPEND(ARRAY, element)", check: checkArrayAppend, build: buildArrayAppend(true)},
	{name: "ARRAY_PREPEND", minArgs: 2, maxArgs: 2, expected: "ARRAY_PREPEND(ARRAY, element)", check: checkArrayAppend, build: buildArrayAppend(false)},
	{name: "ARRAY_UNION", minArgs: 2, maxArgs: 2, expected: "ARRAY_UNION(ARRAY, ARRAY)", check: checkArrayPair, build: buildArraySetOp(setUnion)},
	{name: "ARRAY_EXCEPT", minArgs: 2, maxArgs: 2, expected: "ARRAY_EXCEPT(ARRAY, ARRAY)", check: checkArrayPair, build: buildArraySetOp(setExcept)},
	{name: "ARRAY_INTERSECT", minArgs: 2, maxArgs: 2, expected: "ARRAY_INTERSECT(ARRAY, ARRAY)", check: checkArrayPair, build: buildArraySetOp(setIntersect)},
	{name: "ARRAY_SORT", minArgs: 1, maxArgs: 3, expected: "ARRAY_SORT(ARRAY [, BOOLEAN ascending [, BOOLEAN nulls first]])", check: checkArraySort, build: buildArraySort},
	{name: "MAP_ENTRIES", minArgs: 1, maxArgs: 1, expected: "MAP_ENTRIES(MAP)", check: checkMapEntries, build: buildMapEntries},
	{name: "MAP_FROM_ARRAYS", minArgs: 2, maxArgs: 2, expected: "MAP_FROM_ARRAYS(ARRAY keys, ARRAY values)", check: checkMapFromArrays, build: buildMapFromArrays},
	{name: "MAP_UNION", minArgs: 1, maxArgs: -1, expected: "MAP_UNION(MAP, ...)", check: checkMapUnion, build: buildMapUnion},
}

// aliases are further names of builtins: alias → function.
var aliases = map[string]string{
	"MOD":              "%",
	"CEILING":          "CEIL",
	"SUBSTR":           "SUBSTRING",
	"CHARACTER_LENGTH": "CHAR_LENGTH",
	"NOW":              "CURRENT_TIMESTAMP",
}
