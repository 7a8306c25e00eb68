package expr_test

import (
	"fmt"
	"time"

	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// A WHERE clause and a SELECT list over the row (id BIGINT, amount
// DECIMAL(10, 2), customer STRING), compiled once and run per record.
func Example() {
	id := expr.Col(0, "id", types.BigInt().NotNullable())
	amount := expr.Col(1, "amount", types.DecimalType(10, 2))
	customer := expr.Col(2, "customer", types.String())
	hundred := expr.Lit(types.Int().NotNullable(), types.Int64(100))
	opts := expr.Options{Location: time.UTC}

	where, err := expr.CompileFilter(expr.Fn(">", amount, hundred), opts)
	if err != nil {
		panic(err)
	}
	selectList, err := expr.CompileProjection([]expr.Expr{id, expr.Fn("UPPER", customer)}, opts)
	if err != nil {
		panic(err)
	}
	fmt.Println(where.Program().Expr(), selectList.Types())

	d, _ := types.ParseDecimal("150.25")
	row := []types.Value{types.Int64(7), types.DecimalValue(d), types.Str("ada")}
	out := make([]types.Value, 2)
	if keep, _ := where.Keep(row); keep {
		_ = selectList.Project(row, out)
		fmt.Println(out[0].Int64(), out[1].Str())
	}

	_, err = expr.Resolve(expr.Fn("UPER", customer))
	fmt.Println(err)
	// Output:
	// (CAST(`amount` AS DECIMAL(12, 2)) > CAST(100 AS DECIMAL(12, 2))) [BIGINT NOT NULL STRING]
	// 7 ADA
	// unknown function UPER; did you mean UPPER?
}
