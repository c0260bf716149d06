package schema

import "fmt"

// Error is a problem in a schema document at a JSON pointer.
type Error struct {
	File    string
	Pointer string // JSON pointer, "" for the document root
	Msg     string
}

func (e *Error) Error() string {
	ptr := e.Pointer
	if ptr == "" {
		ptr = "/"
	}
	return fmt.Sprintf("%s: %s: %s", e.File, ptr, e.Msg)
}
