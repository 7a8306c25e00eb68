package planner_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// Example plans a job against a table the program registered itself and
// prints where the job's rows go.
func Example() {
	cat := planner.NewCatalog()
	if err := cat.RegisterTable("clicks", factory.Schema{Columns: []factory.Column{
		{Name: "url", Type: types.String()},
		{Name: "user_id", Type: types.BigInt()},
	}}, map[string]string{"connector": "datagen", "number-of-rows": "100"}); err != nil {
		fmt.Println(err)
		return
	}
	plan, err := planner.Compile(context.Background(), "clicks.sql", `
CREATE TABLE sink (url STRING, user_id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT LOWER(url), user_id FROM clicks WHERE user_id IS NOT NULL;`,
		planner.Options{Registry: testRegistry(), Catalog: cat})
	if err != nil {
		fmt.Println(err)
		return
	}
	ins := plan.Inserts[0]
	fmt.Println(plan.JobName, "reads", ins.Flows[0].Source.Name(), "and writes", ins.Sink.Name())
	fmt.Println("filter:", ins.Flows[0].Filter)
	// Output:
	// clicks reads clicks and writes sink
	// filter: (`user_id` IS NOT NULL)
}

// ExampleErrors lists every error of a job file, each with its position.
func ExampleErrors() {
	_, err := planner.Compile(context.Background(), "job.sql", `
CREATE TABLE s (id BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE o (id INT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT id FROM s;
INSERT INTO o SELECT CAST(id AS INT) FROM s ORDER BY id;`, planner.Options{Registry: testRegistry()})
	for _, e := range planner.Errors(err) {
		var pe *planner.Error
		if errors.As(e, &pe) {
			fmt.Printf("line %d: unsupported=%v type=%v\n", pe.Pos.Line,
				errors.Is(e, ddl.ErrUnsupported), errors.Is(e, planner.ErrType))
		}
	}
	// Output:
	// line 4: unsupported=false type=true
	// line 5: unsupported=true type=false
}
