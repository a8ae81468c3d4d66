from pkg.sub.models import make

make()
