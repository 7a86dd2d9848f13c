package transfer

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// Values are a vector's components. They decode without reflection: vectors are most of an
// export's bytes, and encoding/json's generic decoding of them was most of an import's time.
type Values []float32

// UnmarshalJSON implements json.Unmarshaler. encoding/json has checked the array's syntax
// before it gets here (so no item is NaN, Inf or hex, which JSON cannot spell); what is left is
// to refuse items that are not numbers, and numbers a float32 cannot hold.
func (v *Values) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*v = nil
		return nil
	}
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return errors.New("embedding.values: expected an array of numbers")
	}
	body := bytes.TrimSpace(b[1 : len(b)-1])
	out := make(Values, 0, bytes.Count(body, []byte{','})+1)
	for i := 0; len(body) > 0; i++ {
		var item []byte
		item, body, _ = bytes.Cut(body, []byte{','})
		item = bytes.TrimSpace(item)
		f, err := strconv.ParseFloat(string(item), 32)
		switch {
		case errors.Is(err, strconv.ErrRange):
			return fmt.Errorf("embedding.values[%d]: number %s is out of range", i, item)
		case err != nil:
			return fmt.Errorf("embedding.values[%d]: expected a number, got %s", i, item)
		}
		out = append(out, float32(f))
	}
	*v = out
	return nil
}
