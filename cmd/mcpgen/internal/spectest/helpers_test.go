package spectest

import (
	"errors"
	"reflect"
)

type reflectType = reflect.Type

func errorsAs(err error, target any) bool { return errors.As(err, target) }
